#!/bin/sh
# bench/remote.sh: the cache's remote tier (a Redis server), in one run (from the
# repo root, after ninja; needs redis-server, a build with hiredis and MLIR, ptxas
# and mlir-opt-22).  A redis-server of its own on a free loopback port, stopped at
# the end.
#
#   - the batch: 16 gpu.modules x 2 chips (bench/modules.py, sm_80,sm_90), lowered
#     to the llvm dialect once.  A remote hit, whole process (build/gpublob, the
#     front), with an empty local cache each time and a warm server, against the
#     cold compile (--no-cache), timed in turns by bench/pair.py (RUNS, default 7,
#     after WARMUP, default 1): median wall times and the ratio cold / remote hit;
#     Then the same with the machine's file digests remembered (its local cache
#     emptied of manifests and entries, but not of the digests of ptxas and
#     libdevice it made before: a machine that has compiled before);
#   - one small module (bench/kernels/saxpy_nvptx.ll, sm_90): its remote hit
#     (empty local cache; then digests remembered) against its local hit (warm
#     local cache), in turns;
#   - eight processes at once compiling the batch, each with an empty cache of its
#     own ("eight machines"): first with an empty server (who compiles, who hits),
#     then with a warm one: the processes the server answered (hit rate: those
#     whose front answered, nothing compiled) and the wall time until all eight
#     are done.
# Each command runs under sh -c (the local cache removed first), the same for
# both sides of a pair.  Prints a Markdown table (also to $OUT/remote-table.md
# when $OUT is set).  Exit: 0, 1 a command failed, 77 what it needs is missing.
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-7} warmup=${WARMUP:-1}
say() { printf 'remote.sh: %s\n' "$*" >&2; }
# ptxas, as gpublob finds it (the tool's line of --list-targets names the path)
build/gpublob --list-targets 2>/dev/null | grep -q '/ptxas' || { say "no ptxas (CUDA toolkit)"; exit 77; }
command -v redis-server >/dev/null || { say "no redis-server"; exit 77; }
command -v redis-cli >/dev/null || { say "no redis-cli"; exit 77; }
command -v mlir-opt-22 >/dev/null || { say "no mlir-opt-22"; exit 77; }
grep -q 'GPUBLOB_REMOTE=1' build/config.ninja 2>/dev/null || { say "a build without hiredis"; exit 77; }
build/gpublob --version 2>/dev/null | grep -q 'and MLIR' || { say "build/gpublob without MLIR (ninja first)"; exit 77; }

start=$(date +%s)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-remote-XXXXXX") || exit 2
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
  --maxmemory 1gb --maxmemory-policy allkeys-lru >"$tmp/redis.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
until redis-cli -p "$port" ping >/dev/null 2>&1; do
  i=$((i + 1))
  [ $i -lt 100 ] || { say "redis-server did not start"; cat "$tmp/redis.log" >&2; exit 1; }
  sleep 0.05
done
url=redis://127.0.0.1:$port
lower="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))"
python3 bench/modules.py 16 sm_80,sm_90 >"$tmp/gpu.mlir" || exit 1
mlir-opt-22 "$tmp/gpu.mlir" --pass-pipeline="$lower" -o "$tmp/in.mlir" || exit 1
g=$PWD/build/gpublob

# the batch: warm the server once, then remote hits (empty local cache) against cold compiles
"$g" --cache-dir "$tmp/warm" --remote-cache "$url" "$tmp/in.mlir" -o "$tmp/w.mlir" || exit 1
say "batch: remote hit against cold compile"
batch=$(python3 bench/pair.py "$runs" "$warmup" "batch" \
  -- sh -c "rm -rf '$tmp/l' && exec '$g' --cache-dir '$tmp/l' --remote-cache '$url' '$tmp/in.mlir' -o '$tmp/a.mlir'" \
  -- sh -c "rm -rf '$tmp/l' && exec '$g' --no-cache '$tmp/in.mlir' -o '$tmp/b.mlir'") || exit 1
cmp -s "$tmp/a.mlir" "$tmp/b.mlir" || { say "the remote hit differs from the compile"; exit 1; }
"$g" --time --cache-dir "$tmp/t" --remote-cache "$url" "$tmp/in.mlir" -o "$tmp/a.mlir" 2>"$tmp/batch.time" >/dev/null
grep -q 'time (front)' "$tmp/batch.time" || { say "the batch's remote hit was not the front's"; cat "$tmp/batch.time" >&2; exit 1; }
# a machine that has compiled before: its digests remembered, no manifest or entry
forget="find '$tmp/d/v3' -name '*.[me]' -delete"
"$g" --cache-dir "$tmp/d" --remote-cache "$url" "$tmp/in.mlir" -o "$tmp/a.mlir" || exit 1
say "batch: remote hit, digests remembered, against cold compile"
batchd=$(python3 bench/pair.py "$runs" "$warmup" "batch" \
  -- sh -c "$forget && exec '$g' --cache-dir '$tmp/d' --remote-cache '$url' '$tmp/in.mlir' -o '$tmp/a.mlir'" \
  -- sh -c "$forget && exec '$g' --no-cache '$tmp/in.mlir' -o '$tmp/b.mlir'") || exit 1

# one small module: remote hit (empty local cache) against local hit
small=bench/kernels/saxpy_nvptx.ll
"$g" --cache-dir "$tmp/s" --remote-cache "$url" -t nvptx:sm_90 "$small" -o "$tmp/s.cubin" || exit 1
say "one module: remote hit against local hit"
one=$(python3 bench/pair.py "$runs" "$warmup" "one" \
  -- sh -c "rm -rf '$tmp/l' && exec '$g' --cache-dir '$tmp/l' --remote-cache '$url' -t nvptx:sm_90 '$small' -o '$tmp/a.cubin'" \
  -- sh -c "rm -rf '$tmp/none' && exec '$g' --cache-dir '$tmp/s' --remote-cache '$url' -t nvptx:sm_90 '$small' -o '$tmp/b.cubin'") || exit 1
"$g" --cache-dir "$tmp/d" --remote-cache "$url" -t nvptx:sm_90 "$small" -o "$tmp/a.cubin" || exit 1
say "one module: remote hit, digests remembered, against local hit"
oned=$(python3 bench/pair.py "$runs" "$warmup" "one" \
  -- sh -c "$forget && exec '$g' --cache-dir '$tmp/d' --remote-cache '$url' -t nvptx:sm_90 '$small' -o '$tmp/a.cubin'" \
  -- sh -c "rm -rf '$tmp/none' && exec '$g' --cache-dir '$tmp/s' --remote-cache '$url' -t nvptx:sm_90 '$small' -o '$tmp/b.cubin'") || exit 1

# eight processes at once, eight empty local caches: an empty server, then a warm one
say "eight processes at once"
eight() { # $1: label; prints "label wall_ms fronts compiled"
  rm -rf "$tmp"/e?
  python3 - "$g" "$url" "$tmp" "$1" <<'EOF'
import subprocess, sys, time
g, url, tmp, label = sys.argv[1:5]
t = time.perf_counter()
ps = [subprocess.Popen([g, "--time", "--cache-dir", "%s/e%d" % (tmp, i), "--remote-cache", url,
                        "%s/in.mlir" % tmp, "-o", "%s/e%d.mlir" % (tmp, i)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for i in range(8)]
errs = [p.communicate()[1].decode() for p in ps]
ms = (time.perf_counter() - t) * 1000
if any(p.returncode for p in ps):
    sys.stderr.write("".join(errs))
    sys.exit(1)
fronts = sum("time (front)" in e for e in errs)
print("%s %.1f %d %d" % (label, ms, fronts, 8 - fronts))
EOF
}
redis-cli -p "$port" flushall >/dev/null
cold8=$(eight empty) || exit 1
warm8=$(eight warm) || exit 1
for i in 0 1 2 3 4 5 6 7; do cmp -s "$tmp/e$i.mlir" "$tmp/b.mlir" || { say "process $i's output differs"; exit 1; }; done

python3 - "$batch" "$one" "$cold8" "$warm8" "$tmp/batch.time" "$batchd" "$oned" >"$tmp/table" <<'EOF'
import json, re, sys
b, o = json.loads(sys.argv[1]), json.loads(sys.argv[2])
c8, w8 = sys.argv[3].split(), sys.argv[4].split()
t = open(sys.argv[5]).read()
bd, od = json.loads(sys.argv[6]), json.loads(sys.argv[7])
m = re.search(r"remote cache (\d+) hits, (\d+) misses, (\d+) stored, (\d+) bytes read", t)
print("| case | remote tier | against | ratio |")
print("|---|---|---|---|")
print("| 16 gpu.modules x 2 chips (sm_80, sm_90), whole process | remote hit %.1f ms (empty local cache; %s files, %s bytes) | cold compile %.1f ms | %.0fx faster |"
      % (b["a_ms"], m.group(1), m.group(4), b["b_ms"], b["b_ms"] / b["a_ms"]))
print("| the same, the machine's file digests remembered | remote hit %.1f ms | cold compile %.1f ms | %.0fx faster |"
      % (bd["a_ms"], bd["b_ms"], bd["b_ms"] / bd["a_ms"]))
print("| one small module (saxpy, sm_90), whole process | remote hit %.1f ms (empty local cache) | local hit %.1f ms | %+.1f ms |"
      % (o["a_ms"], o["b_ms"], o["a_ms"] - o["b_ms"]))
print("| the same, the machine's file digests remembered | remote hit %.1f ms | local hit %.1f ms | %+.1f ms |"
      % (od["a_ms"], od["b_ms"], od["a_ms"] - od["b_ms"]))
for label, r in (("an empty server", c8), ("a warm server", w8)):
    print("| 8 processes at once, the batch, 8 empty local caches, %s | %s of 8 answered by the server (hit rate %d%%), %s compiled | all done in %s ms | |"
          % (label, r[2], 100 * int(r[2]) // 8, r[3], r[1]))
print()
print("Medians of %d runs in turns (bench/pair.py); each command under sh -c, its local cache removed first." % b["runs"])
EOF
[ $? -eq 0 ] || exit 1
cat "$tmp/table"
[ -z "${OUT:-}" ] || cp "$tmp/table" "$OUT/remote-table.md"
say "took $(( $(date +%s) - start )) s (RUNS=$runs WARMUP=$warmup)"
