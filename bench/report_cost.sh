#!/bin/sh
# bench/report_cost.sh: what the kernel reports cost a compile, in instructions
# (valgrind's callgrind: these machines' virtual CPUs have no performance counters),
# this tree against an earlier build, in one run:
#   BEFORE=/path/to/old/checkout sh bench/report_cost.sh
# For each NVIDIA kernel (bench/kernels' saxpy and matmul; tests/clang's spill.cu
# made LLVM IR by clang-22 where it is installed) and AMD's (saxpy, matmul):
#   - gpublob-compiler's own instructions (its threads; the blob tool is a child,
#     counted apart), before and after, plain and with --metadata --verbose;
#   - ptxas's on the kernel's PTX, without -v (before) and with it (after: gpublob
#     now always asks for its report);
# and the total after / before.  A copy of each compiler without debug information
# is what runs: valgrind 3.19 cannot read LLVM 22's DWARF 5.  Needs valgrind and
# strip; the NVIDIA rows need ptxas.
set -eu
cd "$(dirname "$0")/.."
before=${BEFORE:?set BEFORE to an earlier checkout with a build}
for t in valgrind strip python3; do
  command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
strip -g -o "$tmp/old" "$before/build/gpublob-compiler"
strip -g -o "$tmp/new" build/gpublob-compiler
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
[ -x "$ptxas" ] || ptxas=

# instructions PROGRAM ARGS...: the instructions callgrind counts for the process
# (every thread; children are not followed).
instructions() {
  valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" "$@" >"$tmp/cg.log" 2>&1 ||
    { echo "bench: failed under valgrind: $*" >&2; tail -5 "$tmp/cg.log" >&2; exit 1; }
  sed -n 's/^==[0-9]*== Collected : //p' "$tmp/cg.log"
}

echo "machine: $(nproc) cores; before: $("$before/build/gpublob" --version); after: $(build/gpublob --version)"
printf '| case | compiler before | compiler after | with --metadata before | after | ptxas | ptxas -v | total after/before |\n'
printf '|---|---|---|---|---|---|---|---|\n'

# row NAME TARGET CHIP INPUT: one kernel's line.
row() {
  name=$1 target=$2 chip=$3 in=$4
  set -- --no-cache -t "$target:$chip" -o "$tmp/out.bin" "$in"
  cb=$(instructions "$tmp/old" "$@") ca=$(instructions "$tmp/new" "$@")
  mb=$(instructions "$tmp/old" "$@" --metadata "$tmp/k.json" --verbose)
  ma=$(instructions "$tmp/new" "$@" --metadata "$tmp/k.json" --verbose)
  pb=0 pa=0
  if [ "$target" = nvptx ]; then
    "$tmp/new" --no-cache -t "$target:$chip" -f asm -o "$tmp/k.ptx" "$in" 2>/dev/null
    pb=$(instructions "$ptxas" -arch="$chip" -O3 "$tmp/k.ptx" -o "$tmp/k.cubin")
    pa=$(instructions "$ptxas" -arch="$chip" -O3 -v "$tmp/k.ptx" -o "$tmp/k.cubin")
  fi
  python3 -c 'import sys
n, cb, ca, mb, ma, pb, pa = sys.argv[1], *map(int, sys.argv[2:])
m = lambda v: "%.2fM" % (v / 1e6) if v else "-"
print("| %s | %s | %s | %s | %s | %s | %s | %.4f (metadata %.4f) |" % (n, m(cb), m(ca), m(mb), m(ma), m(pb), m(pa),
      (ca + pa) / (cb + pb), (ma + pa) / (mb + pb)))' "$name" "$cb" "$ca" "$mb" "$ma" "$pb" "$pa"
}

if [ -n "$ptxas" ]; then
  row "saxpy nvptx" nvptx sm_90 bench/kernels/saxpy_nvptx.ll
  row "matmul nvptx" nvptx sm_90 bench/kernels/matmul_nvptx.ll
  clang=$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)/clang
  if [ -x "$clang" ] && "$clang" -x cuda --cuda-device-only --cuda-gpu-arch=sm_90 -nocudainc -nocudalib -O2 -S \
    -emit-llvm -Itests/clang tests/clang/spill.cu -o "$tmp/spill.ll" 2>/dev/null; then
    row "spill.cu nvptx (spills)" nvptx sm_90 "$tmp/spill.ll"
  else
    echo "bench: no clang-22: the spilling kernel's row is left out" >&2
  fi
else
  echo "bench: no ptxas: the NVIDIA rows are left out" >&2
fi
row "saxpy amdgcn" amdgcn gfx90a bench/kernels/saxpy_amdgcn.ll
row "matmul amdgcn" amdgcn gfx90a bench/kernels/matmul_amdgcn.ll
