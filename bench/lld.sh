#!/bin/sh
# bench/lld.sh: what lld in-process (src/lld.cpp) buys, in one run, each pair timed
# in turns by bench/pair.py (RUNS, default 15, after WARMUP, default 3) and quoted as
# a ratio.  From the repo root after ninja; needs llc-22, ld.lld-22, mlir-opt-22
# (with MLIR) and cc.
#   - amdgcn saxpy (bench/kernels, no device-library call), gfx90a, -f bin: gpublob
#     against llc-22 -O3 && ld.lld-22 -shared (bar: at most 0.40x), and gpublob with
#     --tool-mode program (ld.lld, as before lld in-process);
#   - the same kernel for 8 chips in one call, -j 2: in-process against program;
#   - the library's warm call (bench/warm_call.c linked with -lgpublob): 100 calls in
#     one process, the median call against LLVM's own optimise + emit in it (bar: at
#     most 1.25x), in-process and program;
#   - MLIR: 16 gpu.modules x 2 AMD chips (gfx90a, gfx942; bench/modules.py's kernels
#     with #rocdl.target, lowered to the llvm dialect) against mlir-opt-22
#     --gpu-module-to-binary with a ROCm-shaped toolkit folder, -j 2 (bar: at least 3x).
# Exit: 0, 1 a command failed, 77 what it needs is missing.
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-15} warmup=${WARMUP:-3}
say() { printf 'lld.sh: %s\n' "$*" >&2; }
for t in llc-22 ld.lld-22 cc python3; do command -v $t >/dev/null || { say "no $t"; exit 77; }; done
[ -e build/libgpublob.so ] || { say "no build/libgpublob.so (ninja)"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-lld-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
k=bench/kernels/saxpy_amdgcn.ll
g="build/gpublob --no-cache"

echo "| case | gpublob ms | peer ms | ratio | bar |"
echo "|---|---|---|---|---|"
row() { # NAME BAR(<=, or >=N) -- A... -- B...
  name=$1 bar=$2
  shift 2
  python3 bench/pair.py "$runs" "$warmup" "$name" "$@" >"$tmp/pair.json" || exit 1
  python3 - "$tmp/pair.json" "$bar" <<'PY'
import json, sys
r, bar = json.load(open(sys.argv[1])), sys.argv[2]
ratio = r["a_ms"] / r["b_ms"]
print("| %s | %.1f | %.1f | %.2fx | %s |" % (r["case"], r["a_ms"], r["b_ms"], ratio, bar))
PY
}

say "saxpy gfx90a against llc-22 -O3 && ld.lld-22"
row "saxpy gfx90a bin: gpublob (lld in-process) against llc-22 -O3 && ld.lld-22" "at most 0.40x" \
  -- $g -t amdgcn:gfx90a $k -o "$tmp/g.hsaco" \
  -- sh -c "llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a --amdhsa-code-object-version=5 -filetype=obj $k -o $tmp/t.o && ld.lld-22 -shared --no-undefined $tmp/t.o -o $tmp/l.hsaco"
row "saxpy gfx90a bin: gpublob --tool-mode program against llc-22 -O3 && ld.lld-22" "(before)" \
  -- $g --tool-mode program -t amdgcn:gfx90a $k -o "$tmp/p.hsaco" \
  -- sh -c "llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a --amdhsa-code-object-version=5 -filetype=obj $k -o $tmp/t.o && ld.lld-22 -shared --no-undefined $tmp/t.o -o $tmp/l.hsaco"
chips=amdgcn:gfx90a,gfx942,gfx908,gfx906,gfx1030,gfx1100,gfx1200,gfx1201
say "8 chips, -j 2: in-process against program"
row "saxpy, 8 chips, -j 2: lld in-process against --tool-mode program" "(before/after)" \
  -- $g -j 2 -t $chips $k -o "$tmp/{stem}.{chip}{suffix}" \
  -- $g -j 2 --tool-mode program -t $chips $k -o "$tmp/{stem}.{chip}{suffix}"

say "the warm library call"
cc -O2 -I. -o "$tmp/warm" bench/warm_call.c -Lbuild -lgpublob -Wl,-rpath,"$PWD/build" || exit 1
echo
echo "| warm call, 100 in one process | tool | call ms | LLVM optimise + emit ms | tool ms | ratio | bar |"
echo "|---|---|---|---|---|---|---|"
for mode in 0 1; do
  "$tmp/warm" $k amdgcn:gfx90a 100 $mode >"$tmp/warm.json" || exit 1
  python3 - "$tmp/warm.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| saxpy gfx90a | %s | %.2f | %.2f | %.2f | %.2fx | at most 1.25x |" % (
    r["tool"], r["call_ms"], r["optimise_emit_ms"], r["tool_ms"], r["ratio"]))
PY
done

if build/gpublob --version | grep -q 'and MLIR' && command -v mlir-opt-22 >/dev/null; then
  say "MLIR 16 x 2 AMD against mlir-opt-22"
  rocm=$tmp/rocm
  mkdir -p "$rocm/llvm/bin" "$rocm/amdgcn"
  ln -s "$(command -v ld.lld-22)" "$rocm/llvm/bin/ld.lld"
  ln -s /usr/lib/x86_64-linux-gnu/amdgcn/bitcode "$rocm/amdgcn/bitcode"
  python3 bench/modules.py 16 gfx90a,gfx942 |
    sed 's/#nvvm.target<chip = "\(gfx[0-9a-z]*\)", features = "+ptx80", O = 3>/#rocdl.target<chip = "\1", O = 3>/g' \
    >"$tmp/m16-gpu.mlir" || exit 1
  mlir-opt-22 "$tmp/m16-gpu.mlir" --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-rocdl{chipset=gfx90a runtime=HIP},reconcile-unrealized-casts))" \
    -o "$tmp/m16.mlir" || exit 1
  echo
  echo "| case | gpublob ms | peer ms | throughput (peer / gpublob) | bar |"
  echo "|---|---|---|---|---|"
  for mode in auto program; do
    python3 bench/pair.py "$runs" 1 "16 gpu.modules x 2 AMD chips, -j 2, --tool-mode $mode" \
      -- $g -j 2 --tool-mode $mode "$tmp/m16.mlir" -o "$tmp/g16.mlir" \
      -- mlir-opt-22 "$tmp/m16.mlir" "--gpu-module-to-binary=format=bin toolkit=$rocm" -o "$tmp/u16.mlir" \
      >"$tmp/pair.json" || exit 1
    python3 - "$tmp/pair.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print("| %s | %.1f | %.1f | %.2fx | at least 3x |" % (r["case"], r["a_ms"], r["b_ms"], r["b_ms"] / r["a_ms"]))
PY
  done
else
  say "MLIR row skipped: no MLIR in this build, or no mlir-opt-22"
fi
