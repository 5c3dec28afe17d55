#!/bin/sh
# bench/before_after.sh: this tree's CLI against an earlier build of gpublob, in one
# run, each case's two commands timed in turns (bench/pair.py) and quoted as a ratio
# (after / before; under 1 is faster).  For a change that must not make the
# figures worse (a refactor): build the earlier commit elsewhere, then
#   BEFORE=/path/to/old/checkout sh bench/before_after.sh
# Both checkouts must have build/gpublob and build/gpublob-compiler.  RUNS
# (default 30) and WARMUP (default 5) set the turns.
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-30} warmup=${WARMUP:-5}
before=${BEFORE:?set BEFORE to an earlier checkout with a build}
for t in python3; do
  command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
for d in "$before" .; do
  [ -x "$d/build/gpublob-compiler" ] || { echo "bench: $d/build/gpublob-compiler missing" >&2; exit 1; }
done
old=$(cd "$before" && pwd)/build new=$(pwd)/build
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
mkdir "$tmp/old" "$tmp/new"

echo "machine: $(nproc) cores; before: $($old/gpublob --version); after: $($new/gpublob --version)"
printf '| case | before ms | after ms | after/before |\n|---|---|---|---|\n'

# One case, timed in turns by bench/pair.py (before, after, before, ...): its row.
pair_row() {
  name=$1
  shift
  python3 bench/pair.py "$runs" "$warmup" "$name" "$@" >"$tmp/pair.json"
  python3 -c 'import json, sys
r = json.load(open(sys.argv[1]))
print("| %s | %.1f | %.1f | %.2f |" % (r["case"], r["a_ms"], r["b_ms"], r["b_ms"] / r["a_ms"]))' "$tmp/pair.json"
}

# A compile: NAME and ARGS (the input last); each build writes into its own directory.
row() {
  name=$1
  shift
  pair_row "$name" -- "$old/gpublob-compiler" "$@" -o "$tmp/old/" -- "$new/gpublob-compiler" "$@" -o "$tmp/new/"
}

# The front's cache hit: the LLVM-free binary answers it.
hit_row() {
  for d in old new; do
    eval "bin=\$$d"
    "$bin/gpublob" --cache-dir "$tmp/cache-$d" "$@" -o "$tmp/$d/" >/dev/null 2>&1
  done
  pair_row "cache hit (front): $*" -- "$old/gpublob" --cache-dir "$tmp/cache-old" "$@" -o "$tmp/old/" \
    -- "$new/gpublob" --cache-dir "$tmp/cache-new" "$@" -o "$tmp/new/"
}

row "nvptx saxpy, PTX" --no-cache -t nvptx:sm_90 -f asm examples/saxpy_nvptx.ll
if "$new/gpublob-compiler" --list-targets | grep -q 'ptxas (program)'; then
  row "nvptx saxpy, cubin (ptxas)" --no-cache -t nvptx:sm_90 examples/saxpy_nvptx.ll
  row "nvptx matmul, cubin (ptxas)" --no-cache -t nvptx:sm_90 bench/kernels/matmul_nvptx.ll
  for ld in "${CUDA_HOME:-}" /usr/local/cuda; do
    [ -f "$ld/nvvm/libdevice/libdevice.10.bc" ] || continue
    row "libdevice whole, PTX" --no-cache -t nvptx:sm_90 -f asm "$ld/nvvm/libdevice/libdevice.10.bc"
    break
  done
fi
row "amdgcn saxpy, hsaco (ld.lld)" --no-cache -t amdgcn:gfx90a examples/saxpy_amdgcn.ll
row "spirv saxpy" --no-cache -t spirv examples/saxpy_spirv.ll
row "amdgcn matmul x 4 chips, -j 2" --no-cache -j 2 -t amdgcn:gfx90a,gfx908,gfx1030,gfx1100 \
  bench/kernels/matmul_amdgcn.ll
if "$new/gpublob-compiler" --version | grep -q 'MLIR'; then
  row "MLIR saxpy (gpu dialect), amdgcn" --no-cache -t amdgcn:gfx90a examples/saxpy.mlir
  if command -v mlir-opt-22 >/dev/null && "$new/gpublob-compiler" --list-targets | grep -q 'ptxas (program)'; then
    python3 bench/modules.py 16 sm_80,sm_90 >"$tmp/gpu.mlir"
    mlir-opt-22 "$tmp/gpu.mlir" -o "$tmp/m16.mlir" \
      --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))"
    row "MLIR 16 gpu.modules x 2 chips, nvptx, -j 2" --no-cache -j 2 "$tmp/m16.mlir"
  fi
fi
row "amdgcn saxpy x 8 chips, -j 2" --no-cache -j 2 \
  -t amdgcn:gfx90a,gfx908,gfx906,gfx942,gfx1030,gfx1100,gfx1200,gfx1201 examples/saxpy_amdgcn.ll
hit_row -t amdgcn:gfx90a examples/saxpy_amdgcn.ll
