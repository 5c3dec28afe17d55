#!/bin/sh
# bench/gpu.sh: the proof on a GPU, in two halves, for a GPU machine that has the
# CUDA driver but no LLVM 22 (so nothing can be compiled there).
#
#   sh bench/gpu.sh prepare   here, with LLVM 22 and the CUDA toolkit: build, then
#                             compile every case into gpu-run/ (blobs, a built
#                             launch_cuda and its source, manifest.tsv); carry
#                             that folder to the GPU machine
#   sh bench/gpu.sh run       there: launch every case with launch_cuda, check
#                             each against the CPU (or the driver's refusal), time
#                             the kernels with CUDA events, print a Markdown table
#                             (also to $OUT/gpu-table.md when $OUT is set)
#   sh bench/gpu.sh           both, when this machine can build and has a GPU
#
# Cases: examples/gpu/{saxpy,reduce,printf}.{ll,mlir}, each as a ptxas cubin and
# an nvJitLink cubin for every SM in GPU_SMS (default: sm_80 sm_90 sm_100
# sm_120), as one fatbin of all of them (with the newest's PTX), and as MLIR
# with --attach legacy (ptxas).  On the GPU a cubin must load and match when the
# device runs it (same major SM, minor not above the device's), and must be
# refused (CUDA_ERROR_NO_BINARY_FOR_GPU) otherwise; the fatbin must always load.
# run: GPU_N elements (default 16777259), GPU_TIME launches timed (default 200),
# 60 s per case.  Exit: 0 all passed, 1 a case failed, 2 setup error, 77 no GPU.
cd "$(dirname "$0")/.." || exit 2
dir=gpu-run
sms=${GPU_SMS:-"sm_80 sm_90 sm_100 sm_120"}
kernels="saxpy reduce printf"

say() { printf 'gpu.sh: %s\n' "$*"; }

# ---- prepare ----
compile() { # OUT ARGS...: one gpublob call; a line in the log either way
  out=$1; shift
  if build/gpublob --no-cache "$@" -o "$dir/$out" >>"$dir/prepare.log" 2>&1; then return 0; fi
  say "compile failed: gpublob $* (see $dir/prepare.log)"; failed=$((failed + 1)); return 1
}

add_case() { # KERNEL SOURCE BUILD SM FILE
  abi=plain
  if [ "$2" = mlir ] && [ "$1" != printf ]; then abi=memref; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$abi" "$5" >>"$dir/manifest.tsv"
}

# --list-targets' line "in-process: /PATH/libnvJitLink.so.N (in-process)" under nvptx
have_nvjitlink() { build/gpublob --list-targets 2>/dev/null | grep -q '^ *in-process: /.*libnvJitLink.* (in-process)$'; }

prepare_kernel() { # KERNEL SOURCE
  k=$1 src=$2 ext=cubin in=examples/gpu/$1.$2
  [ "$src" = mlir ] && ext=mlir
  for sm in $sms; do
    compile "blobs/$k.$src.ptxas.$sm.$ext" --tool-mode program -t "nvptx:$sm" "$in" &&
      add_case "$k" "$src" ptxas "$sm" "blobs/$k.$src.ptxas.$sm.$ext"
    if [ -n "$nvjitlink" ]; then
      compile "blobs/$k.$src.nvjitlink.$sm.$ext" --tool-mode in-process -t "nvptx:$sm" "$in" &&
        add_case "$k" "$src" nvjitlink "$sm" "blobs/$k.$src.nvjitlink.$sm.$ext"
    fi
    if [ "$src" = mlir ]; then
      compile "blobs/$k.mlir.legacy.$sm.mlir" --attach legacy --tool-mode program -t "nvptx:$sm" "$in" &&
        add_case "$k" "$src" legacy "$sm" "blobs/$k.mlir.legacy.$sm.mlir"
    fi
  done
  fext=fatbin
  [ "$src" = mlir ] && fext=fatbin.mlir
  compile "blobs/$k.$src.fatbin.$fext" -f fatbin -t "nvptx:$sm_list" "$in" &&
    add_case "$k" "$src" fatbin "$sm_list" "blobs/$k.$src.fatbin.$fext"
}

prepare() {
  command -v ninja >/dev/null || { say "prepare needs ninja (and LLVM 22, the CUDA toolkit)"; return 2; }
  ninja build/gpublob build/gpublob-compiler build/launch_cuda || { say "the build failed"; return 2; }
  rm -rf "$dir" && mkdir -p "$dir/blobs" || return 2
  : >"$dir/prepare.log"
  printf '# kernel\tsource\tbuild\tsm\tabi\tfile\n' >"$dir/manifest.tsv"
  nvjitlink=yes failed=0
  # shellcheck disable=SC2086 # split on purpose: "sm_80 sm_90" -> sm_80,sm_90
  sm_list=$(printf '%s\n' $sms | paste -sd, -)
  have_nvjitlink || { nvjitlink=; say "no libnvJitLink: no nvJitLink cubins"; }
  for k in $kernels; do
    for src in ll mlir; do prepare_kernel "$k" "$src"; done
  done
  cp build/launch_cuda examples/launch_cuda.c "$dir/" || return 2
  { build/gpublob --version; echo "prepared $(date -u +%Y-%m-%dT%H:%MZ) on $(uname -m)";
    ptxas=$(build/gpublob --list-targets | sed -n 's/.*one job: \([^ ]*ptxas\).*/\1/p' | head -n 1)
    [ -n "$ptxas" ] && "$ptxas" --version | tail -n 1; } >"$dir/prepared.txt" 2>&1
  cases=$(grep -vc '^#' "$dir/manifest.tsv")
  say "prepared $cases cases in $dir/ ($(du -sh "$dir" | cut -f1)); $failed compiles failed"
  say "carry $dir/ to the GPU machine and run: sh bench/gpu.sh run"
  [ "$failed" -eq 0 ]
}

# ---- run ----
# The launcher: the one prepare built, or built here from its source when that one
# does not start (another glibc); needs only libc, libdl and libm.
find_launcher() {
  launcher=$dir/launch_cuda
  "$launcher" --help >/dev/null 2>&1 && return 0
  say "the prepared launch_cuda does not start here; building it from $dir/launch_cuda.c"
  launcher=$tmp/launch_cuda
  ${CC:-cc} -std=c11 -O2 -o "$launcher" "$dir/launch_cuda.c" -ldl -lm && return 0
  say "cannot build launch_cuda here"; return 1
}

sm_num() { echo "$1" | sed 's/^sm_//; s/[^0-9].*$//'; }

# Whether a cubin for SM runs on the device: SASS runs within its major, on a minor
# at or above its own.
runs_on_device() {
  c=$(sm_num "$1") d=$(sm_num "$device_sm")
  [ $((c / 10)) -eq $((d / 10)) ] && [ $((c % 10)) -le $((d % 10)) ]
}

describe() { # BUILD SOURCE -> "how it was built"
  case "$1" in
    ptxas) w="ptxas cubin" ;; nvjitlink) w="nvJitLink cubin" ;;
    fatbin) w="fatbin (a cubin per SM + PTX)" ;; legacy) w="ptxas cubin, --attach legacy" ;;
  esac
  case "$2" in ll) echo "$w, from LLVM IR" ;; *) echo "$w, from MLIR (gpu dialect)" ;; esac
}

field() { sed -n "s/^$1: //p" "$log" | head -n 1; }

run_case() { # KERNEL SOURCE BUILD SM ABI FILE
  k=$1 src=$2 build=$3 sm=$4 abi=$5 file=$6
  expect=load
  if [ "$build" != fatbin ] && ! runs_on_device "$sm"; then expect=refuse; fi
  set -- --kernel "$k" --blob "$dir/$file" --abi "$abi"
  if [ "$expect" = refuse ]; then set -- "$@" --expect-refusal
  else set -- "$@" --n "$n" --time "$launches"; fi
  log=$tmp/case.log
  $timeout "$launcher" "$@" >"$log" 2>&1 </dev/null
  rc=$?
  cat "$log" >>"$logs"
  load=$(field load) result=$(field result) ms=$(field time | sed -n 's/^\([0-9.]*\) ms per launch.*/\1/p')
  verdict=FAIL
  if [ "$rc" -eq 0 ]; then verdict=pass; fi
  case "$load" in ok*) load=ok ;; refused*) load="refused: $(echo "$load" | sed 's/^refused \([A-Z_]*\).*/\1/')" ;;
                  "") load="-" ;; esac
  if [ "$expect" = refuse ] && [ "$rc" -eq 0 ]; then result="refused, as expected for $sm on $device_sm"; fi
  [ "$rc" -ge 124 ] && result="exit $rc (timeout or signal)"
  [ -z "$result" ] && result="exit $rc: $(grep -v '^device:' "$log" | tail -n 1)"
  result=$(echo "$result" | sed 's/|/\\|/g')
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "$k.$src" "$(describe "$build" "$src")" "$sm" "$load" \
    "$result" "${ms:--}" "$verdict" >>"$table"
  cases=$((cases + 1))
  if [ "$verdict" = pass ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
}

run() {
  [ -f "$dir/manifest.tsv" ] || { say "no $dir/manifest.tsv: run sh bench/gpu.sh prepare first (with LLVM 22)"; return 2; }
  tmp=$(mktemp -d) || return 2
  trap 'rm -rf "$tmp"' EXIT
  find_launcher || return 2
  info=$("$launcher" --device-info 2>&1); rc=$?
  if [ "$rc" -ne 0 ]; then
    say "no GPU to run on: $(echo "$info" | tail -n 1)"
    [ -n "${OUT:-}" ] && printf 'not run: %s\n' "$(echo "$info" | tail -n 1)" >"$OUT/gpu-table.md"
    [ "$rc" -eq 77 ] && return 77
    return 1
  fi
  device_sm=$("$launcher" --device-sm) || return 1
  timeout=
  command -v timeout >/dev/null && timeout="timeout 60"
  n=${GPU_N:-16777259} launches=${GPU_TIME:-200}
  table=$tmp/table.md logs=$dir/gpu-launch.log
  : >"$logs"
  cases=0 passed=0 failed=0
  {
    echo "$info" | sed -n 's/^device: /GPU: /p'
    sed -n '1p' "$dir/prepared.txt" 2>/dev/null | sed 's/^/blobs: /'
    sed -n '2,$p' "$dir/prepared.txt" 2>/dev/null
    echo "saxpy and reduce: $n elements; ms per launch: mean of $launches launches between two CUDA events"
    echo
    echo "| case | how it was built | SM | load | result | ms per launch | verdict |"
    echo "|---|---|---|---|---|---|---|"
  } >"$table"
  tab=$(printf '\t')
  while IFS=$tab read -r k src build sm abi file; do
    case "$k" in "#"* | "") continue ;; esac
    run_case "$k" "$src" "$build" "$sm" "$abi" "$file"
  done <"$dir/manifest.tsv"
  printf '\n%d cases: %d passed, %d failed (device %s)\n' "$cases" "$passed" "$failed" "$device_sm" >>"$table"
  cat "$table"
  if [ -n "${OUT:-}" ]; then cp "$table" "$OUT/gpu-table.md"; cp "$logs" "$OUT/gpu-launch.log"; fi
  say "$cases cases: $passed passed, $failed failed"
  [ "$failed" -eq 0 ] && [ "$cases" -gt 0 ]
}

# ---- both, when this machine can ----
both() {
  if command -v ninja >/dev/null && [ -x /usr/lib/llvm-22/bin/llc ]; then
    prepare || return $?
  elif [ ! -f "$dir/manifest.tsv" ]; then
    say "neither the build tools (ninja, LLVM 22) nor a prepared $dir/ here"; return 2
  fi
  if [ -x build/launch_cuda ] && ! build/launch_cuda --device-sm >/dev/null 2>&1; then
    say "no GPU here ($(build/launch_cuda --device-sm 2>&1 | tail -n 1)): carry $dir/ and run sh bench/gpu.sh run there"
    return 77
  fi
  run
}

case "${1:-}" in
  prepare) prepare ;;
  run) run ;;
  "") both ;;
  *) echo "usage: sh bench/gpu.sh [prepare|run]" >&2; exit 2 ;;
esac
