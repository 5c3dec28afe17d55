#!/bin/sh
# bench/run.sh: gpublob's CLI against the plain LLVM shell pipelines, on the
# same .ll inputs, in one run.  Run from the repo root: sh bench/run.sh
# (or: ninja bench).  RUNS (default 40) and WARMUP (default 5) set hyperfine's counts.
#   nvptx:  gpublob -t nvptx:sm_90 -O3   vs  llc-22 -O3 -mcpu=sm_90 | ptxas -arch=sm_90 -O3
#   amdgcn: gpublob -t amdgcn:gfx90a -O3 vs  llc-22 -O3 -filetype=obj && ld.lld-22 -shared
#   MLIR:   gpublob k.mlir               vs  mlir-opt-22 k.mlir --gpu-module-to-binary=format=bin
#           on the same module (saxpy lowered to the llvm dialect, #nvvm.target<sm_90> or
#           #rocdl.target<gfx90a> attached by mlir-opt-22 beforehand); and the gpu-dialect
#           saxpy, which gpublob lowers in-process and mlir-opt lowers with the same passes
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-40} warmup=${WARMUP:-5}
for t in hyperfine /usr/bin/time python3 llc-22 ld.lld-22; do
  command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
[ -x build/gpublob ] || { echo "bench: build/gpublob missing; run ninja first" >&2; exit 1; }

ptxas=""                       # searched as the project does (targets/targets.spec)
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  if [ -n "$d" ] && [ -x "$d/bin/ptxas" ]; then ptxas=$d/bin/ptxas; break; fi
done
[ -n "$ptxas" ] || ptxas=$(command -v ptxas || true)
lld=$(command -v ld.lld-22)
# gpublob sets code object version 5 by a module flag; llc-22's default differs
cov=""
if llc-22 --help-hidden 2>/dev/null | grep -q -- '--amdhsa-code-object-version'; then
  cov=--amdhsa-code-object-version=5
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
: >"$tmp/table"; : >"$tmp/mem"

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "$(build/gpublob --version); $(llc-22 --version | sed -n 's/.*LLVM version /llc-22 /p')"
echo "ptxas: ${ptxas:-not found}; amdgcn llc flag: ${cov:-none (llc-22 does not accept one)}"
echo "hyperfine: $warmup warm-up + $runs runs per command; wall = median"
echo

# max RSS in KB of one command; a failing command stops the script
rss() {
  /usr/bin/time -f %M -o "$tmp/rss" "$@" >"$tmp/out" 2>&1 ||
    { cat "$tmp/out" >&2; echo "bench: failed: $*" >&2; exit 1; }
  tail -n 1 "$tmp/rss"
}

# max RSS in KB of gpublob's blob tool, run by gpublob through a GNU time wrapper
tool_rss() {
  tool=$1; shift
  printf '#!/bin/sh\nexec /usr/bin/time -f %%M -o %s/tool.rss %s "$@"\n' "$tmp" "$tool" >"$tmp/tool"
  chmod +x "$tmp/tool"
  rss "$@" --tool "$tmp/tool" >/dev/null
  tail -n 1 "$tmp/tool.rss"
}

# bench CASE GPUBLOB_CMD PIPELINE_CMD sum|max GPUBLOB_KB OWN_KB TOOL_KB STAGE_KB...
bench() {
  name=$1 g=$2 p=$3; shift 3
  hyperfine -N --style none -w "$warmup" -r "$runs" --export-json "$tmp/h.json" \
    "$g" "sh -c '$p'" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
  python3 bench/table.py "$tmp" "$name" "$@"
}

# One case: RSS of each process (which also checks both sides compile), then timing.
nvptx() {
  in=bench/kernels/$1_nvptx.ll gb="build/gpublob -t nvptx:sm_90 -O3"
  llc="llc-22 -O3 -mcpu=sm_90"
  gk=$(rss $gb "$in" -o "$tmp/g.cubin")
  own=$(rss $gb -f asm "$in" -o "$tmp/g.ptx")       # the same LLVM work, no ptxas
  tool=$(tool_rss "$ptxas" $gb "$in" -o "$tmp/g.cubin")
  llck=$(rss $llc "$in" -o "$tmp/p.ptx")
  ptxk=$(rss "$ptxas" -arch=sm_90 -O3 "$tmp/p.ptx" -o "$tmp/p.cubin")
  bench "$1 nvptx sm_90" "$gb $in -o $tmp/g.cubin" \
    "$llc $in -o - | $ptxas -arch=sm_90 -O3 - -o $tmp/p.cubin" sum "$gk" "$own" "$tool" "$llck" "$ptxk"
}
amdgcn() {
  in=bench/kernels/$1_amdgcn.ll gb="build/gpublob -t amdgcn:gfx90a -O3"
  llc="llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a $cov -filetype=obj"
  link="$lld -shared --no-undefined $tmp/p.o -o $tmp/p.hsaco"
  gk=$(rss $gb "$in" -o "$tmp/g.hsaco")
  own=$(rss $gb -f asm "$in" -o "$tmp/g.s")
  tool=$(tool_rss "$lld" $gb "$in" -o "$tmp/g.hsaco")
  llck=$(rss $llc "$in" -o "$tmp/p.o")
  lldk=$(rss $link)
  bench "$1 amdgcn gfx90a" "$gb $in -o $tmp/g.hsaco" "$llc $in -o $tmp/p.o && $link" \
    max "$gk" "$own" "$tool" "$llck" "$lldk"
}

for k in saxpy matmul; do
  if [ -n "$ptxas" ]; then nvptx $k; else
    echo "| $k nvptx sm_90 | skipped: ptxas not found | | | | | |" >>"$tmp/table"
  fi
  amdgcn $k
done

# MLIR: the whole process of each, on the same input file.
mlir_case() {
  name=$1 kind=$2 attach=$3 lower=$4 extra=$5 tool=$6
  src=examples/saxpy.mlir
  mlir-opt-22 "$src" --pass-pipeline="builtin.module($attach,gpu.module($lower))" -o "$tmp/$kind.mlir"
  mlir-opt-22 "$src" --pass-pipeline="builtin.module($attach)" -o "$tmp/$kind-gpu.mlir"
  gb="build/gpublob" up="env PATH=$toolpath mlir-opt-22"
  for in in "$tmp/$kind.mlir" "$tmp/$kind-gpu.mlir"; do
    pre=""; label="$name, llvm dialect"
    case "$in" in *-gpu.mlir)
      pre="--pass-pipeline=builtin.module(gpu.module($lower),gpu-module-to-binary{format=bin${extra:+ $extra}})"
      label="$name, gpu dialect (lowered by each)" ;;
    esac
    post="--gpu-module-to-binary=format=bin${extra:+ $extra}"
    [ -z "$pre" ] || post="$pre"
    gk=$(rss $gb "$in" -o "$tmp/g.mlir")
    own=$(rss $gb -f asm "$in" -o "$tmp/g.mlir")
    tk=$(tool_rss "$tool" $gb "$in" -o "$tmp/g.mlir")
    uk=$(rss $up "$in" "$post" -o "$tmp/u.mlir")
    hyperfine -N --style none -w "$warmup" -r "$runs" --export-json "$tmp/h.json" \
      "$gb $in -o $tmp/g.mlir" "$up $in '$post' -o $tmp/u.mlir" >"$tmp/log" 2>&1 || { cat "$tmp/log" >&2; exit 1; }
    python3 bench/table.py "$tmp" "$label" max "$gk" "$own" "$tk" "$uk"
  done
}
if command -v mlir-opt-22 >/dev/null && build/gpublob --version | grep -q 'and MLIR'; then
  if [ -n "$ptxas" ]; then
    toolpath=$(dirname "$ptxas"):$PATH
    mlir_case "saxpy.mlir nvvm sm_90" nvvm "nvvm-attach-target{chip=sm_90 features=+ptx80 O=3}" \
      "convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts" "" "$ptxas"
  fi
  rocm=$tmp/rocm; mkdir -p "$rocm/llvm/bin" "$rocm/amdgcn"      # upstream's ROCm-shaped folder
  ln -s "$lld" "$rocm/llvm/bin/ld.lld"; ln -s /usr/lib/x86_64-linux-gnu/amdgcn/bitcode "$rocm/amdgcn/bitcode"
  toolpath=$PATH
  mlir_case "saxpy.mlir rocdl gfx90a" rocdl "rocdl-attach-target{chip=gfx90a O=3}" \
    "convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a},reconcile-unrealized-casts" "toolkit=$rocm" "$lld"
else
  echo "| MLIR cases | skipped: no mlir-opt-22, or gpublob built without MLIR | | | | | |" >>"$tmp/table"
fi

echo "| case | gpublob median ms | pipeline median ms | wall ratio | gpublob peak MiB | pipeline peak MiB | memory ratio |"
echo "|---|---|---|---|---|---|---|"
cat "$tmp/table"
echo
echo "| case | gpublob MiB: own + its tool | gpublob MiB by /usr/bin/time | pipeline MiB by stage |"
echo "|---|---|---|---|"
cat "$tmp/mem"
cat <<'EOF'

Ratios are gpublob / pipeline.  Peak = max RSS of each process (GNU time), added
up over the processes alive at once: gpublob keeps running while its ptxas or
ld.lld runs, and llc | ptxas run together, so those add up; llc && ld.lld run
one after the other, so the larger counts.  gpublob's own RSS is from -f asm (the
same LLVM work, no tool).  /usr/bin/time on the whole gpublob command reports the
larger of gpublob and its tool, not their sum.  gpublob runs LLVM's -O3 middle
end (opt) as well; llc -O3 runs only the backend.  For the MLIR cases the other
side is one mlir-opt-22 process, measured whole by GNU time (its ptxas or ld.lld
runs inside it).
EOF
