#!/bin/sh
# bench/http.sh: the cache's HTTP remote tier against its local tier, in one run
# (from the repo root, after ninja; needs nginx (nginx-light), a build with libcurl
# and MLIR, ptxas and mlir-opt-22).  An nginx of its own (WebDAV PUT) on a free
# loopback port, in a temporary folder, stopped at the end.
#
#   - one small module (bench/kernels/saxpy_nvptx.ll, sm_90), whole process
#     (build/gpublob, the front): a remote hit starting from an empty local cache
#     (the command removes it first) against a local hit starting from a copy of a
#     filled one (the command copies it first), in turns (bench/pair.py, RUNS,
#     default 7, after WARMUP, default 1); the bazel layout and the flat one;
#   - the remote tier's own cost: the same remote hit of the one module starting
#     from a copy of a folder that holds only the file digests (ptxas's 37 MB is
#     digested once per cache folder), against the same local hit;
#   - the floor: a process that loads libcurl and does nothing else
#     (bench/curl_load.c: dlopen and curl_global_init), against the same local hit;
#   - the batch, 16 gpu.modules x 2 chips (bench/modules.py, sm_80,sm_90, lowered
#     to the llvm dialect once), the same two sides (bazel layout).
# The ratio is remote / local (the bar: at most 2).  Prints a Markdown table
# (also to $OUT/http-table.md when $OUT is set).  Exit: 0, 1 a command failed, 77
# what it needs is missing.
cd "$(dirname "$0")/.." || exit 2
runs=${RUNS:-7} warmup=${WARMUP:-1}
say() { printf 'http.sh: %s\n' "$*" >&2; }
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { say "no nginx (apt-get install nginx-light)"; exit 77; }
build/gpublob --list-targets 2>/dev/null | grep -q '/ptxas' || { say "no ptxas (CUDA toolkit)"; exit 77; }
command -v mlir-opt-22 >/dev/null || { say "no mlir-opt-22"; exit 77; }
grep -q 'GPUBLOB_CURL=1' build/config.ninja 2>/dev/null || { say "a build without libcurl"; exit 77; }
build/gpublob --version 2>/dev/null | grep -q 'and MLIR' || { say "build/gpublob without MLIR (ninja first)"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-http-XXXXXX") || exit 2
mkdir -p "$tmp/root" "$tmp/tmp"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$tmp/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1; $user
error_log $tmp/error.log; pid $tmp/nginx.pid;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $tmp/tmp; proxy_temp_path $tmp/tmp; fastcgi_temp_path $tmp/tmp;
  uwsgi_temp_path $tmp/tmp; scgi_temp_path $tmp/tmp;
  client_max_body_size 0;
  server {
    listen 127.0.0.1:$port;
    root $tmp/root;
    location / { dav_methods PUT; create_full_put_path on; }
  }
}
EOF
"$nginx" -p "$tmp" -c "$tmp/nginx.conf" -e "$tmp/error.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
until python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1)" 2>/dev/null; do
  i=$((i + 1))
  [ $i -lt 100 ] || { say "nginx did not start"; cat "$tmp/error.log" >&2; exit 1; }
  sleep 0.05
done
g=${GPUBLOB:-$PWD/build/gpublob} # another build's front to compare: GPUBLOB=DIR/gpublob (its gpublob-front beside it)

# pair NAME URL FLAGS...: remote hit (empty local cache) against local hit (a copy of a filled one)
pair() {
  name=$1 url=$2
  shift 2
  rm -rf "$tmp/filled" "$tmp/a" "$tmp/b"
  "$g" --cache-dir "$tmp/filled" --remote-cache "$url" "$@" -o "$tmp/ref" || exit 1 # compiles, stores in both
  say "$name: remote hit against local hit"
  python3 bench/pair.py "$runs" "$warmup" "$name" \
    -- sh -c "rm -rf '$tmp/a' && exec '$g' --cache-dir '$tmp/a' --remote-cache '$url' \"\$@\" -o '$tmp/a.out'" sh "$@" \
    -- sh -c "rm -rf '$tmp/b' && cp -a '$tmp/filled' '$tmp/b' && exec '$g' --cache-dir '$tmp/b' \"\$@\" -o '$tmp/b.out'" sh "$@" ||
    exit 1
  cmp -s "$tmp/a.out" "$tmp/ref" && cmp -s "$tmp/b.out" "$tmp/ref" || { say "$name: a hit differs from the compile"; exit 1; }
  rm -rf "$tmp/c"
  "$g" --time --cache-dir "$tmp/c" --remote-cache "$url" "$@" -o "$tmp/c.out" 2>&1 >/dev/null | grep -q 'time (front): remote cache 2 hits' ||
    { say "$name: the remote hit was not the front's"; exit 1; }
}
# memo NAME URL FLAGS...: the remote tier's own cost, the file digests aside: a remote
# hit starting from a copy of a folder that holds only the filled one's file digests
# (.d: the tools' and libraries' digests, which an empty folder makes first: ptxas's
# 37 MB), against the same local hit.  Run after pair NAME's, which filled it.
memo() {
  name=$1 url=$2
  shift 2
  rm -rf "$tmp/memo" && cp -a "$tmp/filled" "$tmp/memo" && find "$tmp/memo" -type f ! -name '*.d' ! -name size -delete ||
    exit 1
  say "$name: remote hit (file digests remembered) against local hit"
  python3 bench/pair.py "$runs" "$warmup" "$name" \
    -- sh -c "rm -rf '$tmp/a' && cp -a '$tmp/memo' '$tmp/a' && exec '$g' --cache-dir '$tmp/a' --remote-cache '$url' \"\$@\" -o '$tmp/a.out'" sh "$@" \
    -- sh -c "rm -rf '$tmp/b' && cp -a '$tmp/filled' '$tmp/b' && exec '$g' --cache-dir '$tmp/b' \"\$@\" -o '$tmp/b.out'" sh "$@" ||
    exit 1
  cmp -s "$tmp/a.out" "$tmp/ref" || { say "$name: a hit differs from the compile"; exit 1; }
}
small=bench/kernels/saxpy_nvptx.ll
one=$(pair "one, bazel" "http://127.0.0.1:$port/b1" -t nvptx:sm_90 "$small") || exit 1
onem=$(memo "one, bazel, file digests remembered" "http://127.0.0.1:$port/b1" -t nvptx:sm_90 "$small") || exit 1
onef=$(pair "one, flat" "http://127.0.0.1:$port/f1?layout=flat" -t nvptx:sm_90 "$small") || exit 1
# the floor: a process that only loads libcurl (bench/curl_load.c), against the same local hit
cc -O2 -o "$tmp/curl_load" bench/curl_load.c -ldl || exit 1
say "libcurl's load alone against local hit"
load=$(python3 bench/pair.py "$runs" "$warmup" "libcurl.so.4 loaded, nothing else (curl_load.c)" \
  -- sh -c "exec '$tmp/curl_load'" \
  -- sh -c "rm -rf '$tmp/b' && cp -a '$tmp/filled' '$tmp/b' && exec '$g' --cache-dir '$tmp/b' \"\$@\" -o '$tmp/b.out'" sh -t nvptx:sm_90 "$small") ||
  exit 1
lower="builtin.module(gpu.module(convert-scf-to-cf,convert-gpu-to-nvvm,reconcile-unrealized-casts))"
python3 bench/modules.py 16 sm_80,sm_90 >"$tmp/gpu.mlir" || exit 1
mlir-opt-22 "$tmp/gpu.mlir" --pass-pipeline="$lower" -o "$tmp/in.mlir" || exit 1
batch=$(pair "batch, bazel" "http://127.0.0.1:$port/b2" "$tmp/in.mlir") || exit 1

python3 - "$one" "$onef" "$onem" "$load" "$batch" >"$tmp/table" <<'EOF'
import json, sys
print("| case (whole process, loopback nginx) | remote hit, empty local cache (or as the case says) | local hit, copy of a filled one | remote / local |")
print("|---|---|---|---|")
for arg in sys.argv[1:]:
    r = json.loads(arg)
    a, b = r["a_ms"], r["b_ms"]
    print("| %s | %.1f ms (min %.1f) | %.1f ms (min %.1f) | %.2f |" % (r["case"], a, r["a_min"], b, r["b_min"], a / b))
EOF
cat "$tmp/table"
[ -z "${OUT:-}" ] || cp "$tmp/table" "$OUT/http-table.md"
