#!/bin/sh
# bench/scale.sh: how gpublob scales with the call's size, against mlir-opt-22, in
# one run (from the repo root, after ninja; needs ptxas, mlir-opt-22 and a build
# with MLIR).
#
#   For N gpu.modules (bench/modules.py; SIZES, default "1 4 16 64") x 1 and 2
#   chips (sm_90; sm_80,sm_90), lowered to the llvm dialect once, and for each
#   core count J in CORES (default "1 2", and every core of a larger machine:
#   "1 2 16" on 16 cores):
#     - gpublob --no-cache -jJ IN -o OUT against
#       mlir-opt-22 IN --gpu-module-to-binary=format=bin -o OUT (serial), both
#       under taskset -c 0-(J-1), timed in turns by bench/pair.py (RUNS, default 7,
#       after WARMUP, default 1): median wall times, the throughput ratio
#       (mlir-opt / gpublob) and each side's peak memory (max RSS, MiB);
#     - the ceiling from gpublob's own --time figures (the median of CEIL_RUNS,
#       default 3): the unavoidable CPU work, optimise + emit + the tool's own
#       CPU (nvJitLink's thread CPU, or ptxas's rusage), divided by the cores the
#       jobs can use (min(J, jobs)), beside the
#       measured wall time: "of ceiling" is ceiling / wall.
# TOOL_MODE (auto, program or in-process) is passed to gpublob as --tool-mode (default:
# auto, which runs ptxas like mlir-opt; in-process runs nvJitLink).
# Prints a Markdown table (also to $OUT/scale-table.md when $OUT is set) and how
# long the run took.  Exit: 0, 1 a command failed, 77 what it needs is missing.
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-7} warmup=${WARMUP:-1} ceil_runs=${CEIL_RUNS:-3} mode=${TOOL_MODE:-auto}
sizes=${SIZES:-"1 4 16 64"}
ncpu=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc 2>/dev/null || echo 1)
cores=${CORES:-"1 2"}
[ -n "${CORES:-}" ] || [ "$ncpu" -le 2 ] || cores="1 2 $ncpu"

say() { printf 'scale.sh: %s\n' "$*" >&2; }
ptxas=""
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$d" ] && [ -x "$d/bin/ptxas" ] && { ptxas=$d/bin/ptxas; break; }
done
[ -n "$ptxas" ] || ptxas=$(command -v ptxas 2>/dev/null)
[ -n "$ptxas" ] || { say "no ptxas (CUDA toolkit): nothing to compare"; exit 77; }
command -v mlir-opt-22 >/dev/null || { say "no mlir-opt-22"; exit 77; }
command -v taskset >/dev/null || { say "no taskset (util-linux)"; exit 77; }
build/gpublob --version 2>/dev/null | grep -q 'and MLIR' || { say "build/gpublob without MLIR (ninja first)"; exit 77; }

start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-scale-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
mopt="env PATH=$(dirname "$ptxas"):$PATH mlir-opt-22"
lower="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))"
: >"$tmp/rows"
for n in $sizes; do
  for chips in sm_90 sm_80,sm_90; do
    nchips=$(echo "$chips" | tr ',' '\n' | wc -l)
    python3 bench/modules.py "$n" "$chips" >"$tmp/gpu.mlir" || exit 1
    mlir-opt-22 "$tmp/gpu.mlir" --pass-pipeline="$lower" -o "$tmp/in.mlir" || exit 1
    for j in $cores; do
      [ "$j" -le "$ncpu" ] || continue
      cpus=0-$((j - 1))
      say "$n x $nchips, $j core(s)"
      pair=$(python3 bench/pair.py "$runs" "$warmup" "$n x $nchips" \
        -- taskset -c "$cpus" build/gpublob --no-cache --tool-mode "$mode" -j"$j" "$tmp/in.mlir" -o "$tmp/g.mlir" \
        -- taskset -c "$cpus" $mopt "$tmp/in.mlir" --gpu-module-to-binary=format=bin -o "$tmp/u.mlir") || exit 1
      # gpublob's phase figures: the compiler's own --time line, CEIL_RUNS times.
      : >"$tmp/time"
      i=0
      while [ $i -lt "$ceil_runs" ]; do
        taskset -c "$cpus" build/gpublob --no-cache --tool-mode "$mode" --time -j"$j" "$tmp/in.mlir" -o "$tmp/g.mlir" 2>>"$tmp/time" >/dev/null ||
          { cat "$tmp/time" >&2; exit 1; }
        i=$((i + 1))
      done
      printf '%s\t%s\t%s\t%s\n' "$n" "$nchips" "$j" "$pair" >>"$tmp/rows"
      grep 'time (compiler)' "$tmp/time" | sed "s/^/$n	$nchips	$j	/" >>"$tmp/rows.time"
    done
  done
done

python3 - "$tmp/rows" "$tmp/rows.time" "$ncpu" "$mode" >"$tmp/table" <<'EOF'
import json, re, statistics, sys
rows = [l.rstrip("\n").split("\t", 3) for l in open(sys.argv[1]) if l.strip()]
figs = {}
pat = {k: re.compile(r"\b%s ([0-9.]+)" % k) for k in ("wall", "optimise", "emit")}
cpu = re.compile(r"tool CPU ([0-9.]+) ms")
for l in open(sys.argv[2]):
    n, c, j, line = l.rstrip("\n").split("\t", 3)
    f = {k: float(p.search(line).group(1)) for k, p in pat.items()}
    f["cpu"] = float(cpu.search(line).group(1))
    f["jobs"] = int(re.search(r"([0-9]+) jobs", line).group(1))
    figs.setdefault((n, c, j), []).append(f)
print("On %s online cores; gpublob --no-cache --tool-mode %s -jJ and mlir-opt-22 --gpu-module-to-binary, both under taskset -c 0-(J-1)." % (sys.argv[3], sys.argv[4]))
print()
print("| gpu.modules x chips | cores | gpublob ms | mlir-opt-22 ms | throughput ratio | ceiling ms | of ceiling | gpublob MiB | mlir-opt MiB |")
print("|---|---|---|---|---|---|---|---|---|")
for n, c, j, pair in rows:
    p = json.loads(pair)
    fs = figs.get((n, c, j), [])
    med = lambda k: statistics.median(f[k] for f in fs) if fs else float("nan")
    used = max(1, min(int(j), int(med("jobs")) if fs else int(j)))  # one job keeps one core busy
    ceiling = (med("optimise") + med("emit") + med("cpu")) / used
    print("| %s x %s | %s | %.1f | %.1f | %.2fx | %.1f | %.0f%% | %.0f | %.0f |" % (
        n, c, j, p["a_ms"], p["b_ms"], p["b_ms"] / p["a_ms"], ceiling, 100 * ceiling / p["a_ms"],
        p["a_mib"], p["b_mib"]))
print()
print("ceiling: (optimise + emit + the tool's own CPU) / the cores the jobs can use (min(cores, jobs)),")
print("medians of gpublob's --time figures;")
print("of ceiling: ceiling / gpublob's median wall time (100% is every core busy with unavoidable work).")
EOF
[ $? -eq 0 ] || exit 1
cat "$tmp/table"
[ -z "${OUT:-}" ] || cp "$tmp/table" "$OUT/scale-table.md"
say "took $(( $(date +%s) - start )) s (RUNS=$runs WARMUP=$warmup CEIL_RUNS=$ceil_runs SIZES='$sizes' CORES='$cores')"
