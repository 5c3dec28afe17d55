#!/bin/sh
# bench/speed.sh: the speed bars, in one run (from the repo root, after ninja; needs
# ptxas, llc-22, mlir-opt-22 and a build with MLIR).  Each pair is timed in turns by
# bench/pair.py (RUNS, default 15, after WARMUP, default 3) and quoted as a ratio:
#   - 16 gpu.modules x 2 chips on 2 cores against mlir-opt-22, with the ceiling, in
#     auto mode (ptxas) and in-process (nvJitLink): bench/scale.sh SIZES=16 CORES=2;
#   - libdevice.10.bc whole, -f asm sm_90, against llc-22 -O3;
#   - the 16 x 2 cache hit, the whole process (the front), against cp of the same output;
#   - the start of gpublob-compiler against the front's (--version).
# Prints Markdown tables and how long the run took.  Exit: 0, 1 a command failed,
# 77 what it needs is missing.
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-15} warmup=${WARMUP:-3}
say() { printf 'speed.sh: %s\n' "$*" >&2; }
libdevice=""
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$d" ] && [ -f "$d/nvvm/libdevice/libdevice.10.bc" ] && { libdevice=$d/nvvm/libdevice/libdevice.10.bc; break; }
done
[ -n "$libdevice" ] || { say "no libdevice (CUDA toolkit)"; exit 77; }
command -v llc-22 >/dev/null || { say "no llc-22"; exit 77; }
start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-speed-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

for mode in auto in-process; do
  say "16 x 2 against mlir-opt-22, --tool-mode $mode"
  TOOL_MODE=$mode SIZES=16 CORES=2 RUNS=$runs WARMUP=1 sh bench/scale.sh || exit $?
  echo
done

row() { # NAME BAR RATIO_KIND -- A... -- B...: one pair, one row
  name=$1 bar=$2
  shift 2
  python3 bench/pair.py "$runs" "$warmup" "$name" "$@" >"$tmp/pair.json" || exit 1
  python3 - "$tmp/pair.json" "$bar" >>"$tmp/rows" <<'EOF'
import json, sys
r, bar = json.load(open(sys.argv[1])), float(sys.argv[2])
ratio = r["a_ms"] / r["b_ms"]
print("| %s | %.1f | %.1f | %.2fx | at most %.1fx | %s |" % (
    r["case"], r["a_ms"], r["b_ms"], ratio, bar, "yes" if ratio <= bar else "NO"))
EOF
}

say "libdevice whole, -f asm, against llc-22 -O3"
row "libdevice.10.bc whole, asm sm_90: gpublob against llc-22 -O3" 1.0 \
  -- build/gpublob --no-cache -t nvptx:sm_90 -f asm "$libdevice" -o "$tmp/g.ptx" \
  -- llc-22 -O3 -mtriple=nvptx64-nvidia-cuda -mcpu=sm_90 "$libdevice" -o "$tmp/l.ptx"

say "16 x 2 cache hit against cp"
python3 bench/modules.py 16 sm_80,sm_90 >"$tmp/gpu.mlir" || exit 1
mlir-opt-22 "$tmp/gpu.mlir" -o "$tmp/in.mlir" \
  --pass-pipeline="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))" || exit 1
build/gpublob --cache-dir "$tmp/cache" "$tmp/in.mlir" -o "$tmp/hit.mlir" || exit 1
row "16 x 2 cache hit, whole process (the front): gpublob against cp of its output" 1.0 \
  -- build/gpublob --cache-dir "$tmp/cache" "$tmp/in.mlir" -o "$tmp/hit2.mlir" \
  -- cp "$tmp/hit.mlir" "$tmp/cp.mlir"
cmp -s "$tmp/hit.mlir" "$tmp/hit2.mlir" || { say "the hit's output differs from the compile's"; exit 1; }

say "start: gpublob-compiler against the front"
row "start (--version): gpublob-compiler against the front (build/gpublob)" 2.0 \
  -- build/gpublob-compiler --version -- build/gpublob --version

echo "| case | gpublob ms | peer ms | ratio | bar | met |"
echo "|---|---|---|---|---|---|"
cat "$tmp/rows"
say "took $(( $(date +%s) - start )) s (RUNS=$runs WARMUP=$warmup)"
