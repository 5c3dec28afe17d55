#!/bin/sh
# bench/run.sh: gpublob's CLI against its peers, in one run: the plain LLVM shell
# pipelines on the same .ll inputs, mlir-opt-22 --gpu-module-to-binary on the same
# MLIR, and the throughput bars (many modules and chips, the cache, libdevice whole,
# gpublob's own overhead).  Run from the repo root: sh bench/run.sh (or: ninja
# bench).  RUNS (default 40) and WARMUP (default 5) set hyperfine's counts; PAIRS
# (default 15) the turns of bench/pair.py.
#   nvptx:  gpublob -t nvptx:sm_90 -O3   vs  llc-22 -O3 -mcpu=sm_90 | ptxas -arch=sm_90 -O3
#   amdgcn: gpublob -t amdgcn:CHIP -O3   vs  llc-22 -O3 -filetype=obj && ld.lld-22 -shared
#           for CHIP gfx90a (MI200), gfx942 (MI300) and gfx1100 (RDNA 3)
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
  in=bench/kernels/$1_nvptx.ll gb="build/gpublob --no-cache -t nvptx:sm_90 -O3"
  llc="llc-22 -O3 -mcpu=sm_90"
  gk=$(rss $gb "$in" -o "$tmp/g.cubin")
  own=$(rss $gb -f asm "$in" -o "$tmp/g.ptx")       # the same LLVM work, no ptxas
  tool=$(tool_rss "$ptxas" $gb "$in" -o "$tmp/g.cubin")
  llck=$(rss $llc "$in" -o "$tmp/p.ptx")
  ptxk=$(rss "$ptxas" -arch=sm_90 -O3 "$tmp/p.ptx" -o "$tmp/p.cubin")
  bench "$1 nvptx sm_90" "$gb $in -o $tmp/g.cubin" \
    "$llc $in -o - | $ptxas -arch=sm_90 -O3 - -o $tmp/p.cubin" sum "$gk" "$own" "$tool" "$llck" "$ptxk"
}
amdgcn() { # KERNEL CHIP
  in=bench/kernels/$1_amdgcn.ll gb="build/gpublob --no-cache -t amdgcn:$2 -O3"
  llc="llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=$2 $cov -filetype=obj"
  link="$lld -shared --no-undefined $tmp/p.o -o $tmp/p.hsaco"
  gk=$(rss $gb "$in" -o "$tmp/g.hsaco")
  own=$(rss $gb -f asm "$in" -o "$tmp/g.s")
  tool=$(tool_rss "$lld" $gb "$in" -o "$tmp/g.hsaco")
  llck=$(rss $llc "$in" -o "$tmp/p.o")
  lldk=$(rss $link)
  bench "$1 amdgcn $2" "$gb $in -o $tmp/g.hsaco" "$llc $in -o $tmp/p.o && $link" \
    max "$gk" "$own" "$tool" "$llck" "$lldk"
}

for k in saxpy matmul; do
  if [ -n "$ptxas" ]; then nvptx $k; else
    echo "| $k nvptx sm_90 | skipped: ptxas not found | | | | | |" >>"$tmp/table"
  fi
  for chip in gfx90a gfx942 gfx1100; do amdgcn $k $chip; done
done

# MLIR: the whole process of each, on the same input file.
mlir_case() {
  name=$1 kind=$2 attach=$3 lower=$4 extra=$5 tool=$6
  src=examples/saxpy.mlir
  mlir-opt-22 "$src" --pass-pipeline="builtin.module($attach,gpu.module($lower))" -o "$tmp/$kind.mlir"
  mlir-opt-22 "$src" --pass-pipeline="builtin.module($attach)" -o "$tmp/$kind-gpu.mlir"
  gb="build/gpublob --no-cache" up="env PATH=$toolpath mlir-opt-22"
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

# ---- the throughput bars: each pair timed in turns by bench/pair.py ----
pairs=${PAIRS:-15}
: >"$tmp/bars"
pair() { # NAME CMD_A... -- CMD_B...
  name=$1; shift
  python3 bench/pair.py "$pairs" 2 "$name" -- "$@" >>"$tmp/bars"
}
nocache="build/gpublob --no-cache"
mopt="env PATH=${ptxas:+$(dirname "$ptxas"):}$PATH mlir-opt-22"
if [ -n "$ptxas" ] && command -v mlir-opt-22 >/dev/null && build/gpublob --version | grep -q 'and MLIR'; then
  mlir-opt-22 examples/saxpy.mlir --pass-pipeline="builtin.module(nvvm-attach-target{chip=sm_90 features=+ptx80 O=3},gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))" -o "$tmp/one.mlir"
  python3 bench/modules.py 16 sm_80,sm_90 >"$tmp/m16-gpu.mlir"
  mlir-opt-22 "$tmp/m16-gpu.mlir" --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))" -o "$tmp/m16.mlir"
  pair "one small gpu.module, cold, bin sm_90" $nocache "$tmp/one.mlir" -o "$tmp/g1.mlir" \
    -- $mopt "$tmp/one.mlir" --gpu-module-to-binary=format=bin -o "$tmp/u1.mlir"
  pair "16 gpu.modules x 2 chips" $nocache "$tmp/m16.mlir" -o "$tmp/g16.mlir" \
    -- $mopt "$tmp/m16.mlir" --gpu-module-to-binary=format=bin -o "$tmp/u16.mlir"
  build/gpublob --cache-dir "$tmp/cache" "$tmp/one.mlir" -o "$tmp/h1.mlir" 2>/dev/null
  build/gpublob --cache-dir "$tmp/cache" "$tmp/m16.mlir" -o "$tmp/h16.mlir" 2>/dev/null
  pair "cache hit, one small gpu.module" build/gpublob --cache-dir "$tmp/cache" "$tmp/one.mlir" -o "$tmp/h1.mlir" \
    -- $nocache "$tmp/one.mlir" -o "$tmp/g1.mlir"
  pair "cache hit, 16 gpu.modules x 2 chips" build/gpublob --cache-dir "$tmp/cache" "$tmp/m16.mlir" -o "$tmp/h16.mlir" \
    -- $nocache "$tmp/m16.mlir" -o "$tmp/g16.mlir"
fi
libdevice=$(dirname "$(dirname "${ptxas:-/nonexistent/bin/ptxas}")")/nvvm/libdevice/libdevice.10.bc
if [ -f "$libdevice" ]; then
  pair "libdevice.10.bc whole, bin sm_90" $nocache -t nvptx:sm_90 "$libdevice" -o "$tmp/ld.cubin" \
    -- sh -c "llc-22 -O3 -mcpu=sm_90 $libdevice -o - | $ptxas -arch=sm_90 -O3 - -o $tmp/ld-p.cubin"
  pair "libdevice.10.bc whole, asm sm_90 (every function)" $nocache -t nvptx:sm_90 -f asm "$libdevice" -o "$tmp/ld.ptx" \
    -- llc-22 -O3 -mcpu=sm_90 "$libdevice" -o "$tmp/ld-p.ptx"
fi

# ---- isolation: each job's LLVM work in a child process, against in-process ----
: >"$tmp/iso"
iso() { # NAME ARGS...
  name=$1; shift
  python3 bench/pair.py "$pairs" 2 "$name" -- $nocache --no-isolate "$@" -- $nocache --isolate "$@" >>"$tmp/iso"
}
[ -z "$ptxas" ] || iso "saxpy_nvptx.ll, bin sm_90" -t nvptx:sm_90 examples/saxpy_nvptx.ll -o "$tmp/i.cubin"
iso "saxpy_amdgcn.ll, bin gfx90a" -t amdgcn:gfx90a examples/saxpy_amdgcn.ll -o "$tmp/i.hsaco"
[ ! -f "$tmp/one.mlir" ] || iso "one small gpu.module (MLIR), bin sm_90" "$tmp/one.mlir" -o "$tmp/i.mlir"
[ ! -f "$tmp/m16.mlir" ] || iso "16 gpu.modules x 2 chips (MLIR) jobs=32" "$tmp/m16.mlir" -o "$tmp/i16.mlir"

# ---- gpublob's overhead: the call's wall time beyond LLVM's work and the blob tool's ----
: >"$tmp/overhead"
overhead() { # NAME ARGS...
  name=$1; shift
  for i in 1 2 3 4 5 6 7; do
    build/gpublob-compiler --no-cache --no-isolate --time -j1 "$@" 2>&1 >/dev/null | sed -n 's/.*wall \([0-9.]*\) ms.*phases sum \([0-9.]*\) ms.*/\1 \2/p'
  done | python3 -c "
import statistics, sys
rows = [tuple(map(float, l.split())) for l in sys.stdin if l.strip()]
walls = [w for w, s in rows]; over = [(w - s) / w * 100 for w, s in rows]
print('| %s | %.1f | %.2f | %.1f%% |' % (sys.argv[1], statistics.median(walls), statistics.median([w - s for w, s in rows]), statistics.median(over)))
" "$name" >>"$tmp/overhead"
}
[ -z "$ptxas" ] || overhead "saxpy_nvptx.ll, bin sm_90" -t nvptx:sm_90 examples/saxpy_nvptx.ll -o "$tmp/o.cubin"
overhead "saxpy_amdgcn.ll, bin gfx90a" -t amdgcn:gfx90a examples/saxpy_amdgcn.ll -o "$tmp/o.hsaco"
[ -z "$ptxas" ] || overhead "matmul_nvptx.ll, bin sm_90" -t nvptx:sm_90 bench/kernels/matmul_nvptx.ll -o "$tmp/o.cubin"
[ ! -f "$tmp/one.mlir" ] || overhead "one small gpu.module (MLIR), bin sm_90" "$tmp/one.mlir" -o "$tmp/o.mlir"
[ ! -f "$tmp/m16.mlir" ] || overhead "16 gpu.modules x 2 chips (MLIR), 1 thread" "$tmp/m16.mlir" -o "$tmp/o.mlir"
[ ! -f "$libdevice" ] || overhead "libdevice.10.bc whole, asm sm_90" -t nvptx:sm_90 -f asm "$libdevice" -o "$tmp/o.ptx"

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
echo
echo "Throughput bars (bench/pair.py: $pairs turns of each pair after 2 warm-ups; medians):"
echo
python3 bench/bars.py "$tmp/bars"
echo
echo "gpublob's overhead inside one process (-j1, --no-isolate, --time, median of 7): the call's wall time"
echo "minus LLVM's own work (parse, verify, link, optimise, emit; MLIR: lowering and"
echo "translation) and the blob tool's:"
echo
echo "| case | wall ms | overhead ms | overhead |"
echo "|---|---|---|---|"
cat "$tmp/overhead"
echo
echo "Isolation (bench/pair.py, $pairs turns each): --no-isolate against --isolate, whole process:"
echo
python3 bench/iso.py "$tmp/iso"
