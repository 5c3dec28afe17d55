#!/bin/sh
# bench/pack.sh: -f fatbin for amdgcn, the two ways the spec gives to make the clang
# offload bundle, for 2 and 4 chips of bench/kernels/saxpy_amdgcn.ll (no device
# library, so gfx942 and gfx1100 compile too):
#   in turns (bench/pair.py, whole processes, --no-cache):
#     -f bin of the chips                 against -f fatbin, in-process (offload_bundle)
#     -f fatbin, in-process (the default) against -f fatbin --tool-mode program
#                                             (clang-offload-bundler)
#   the pack step alone: clang-offload-bundler over the same hsacos, as clang runs it
#     (hyperfine), and the bytes of both ways compared; the in-process writer in a
#     loop (bench/pack_writer.c).
# Run from the repo root: sh bench/pack.sh.  PAIRS (default 30) and WARMUP (default 5)
# set the turns; RUNS (default 40) hyperfine's runs.
set -eu
cd "$(dirname "$0")/.."
pairs=${PAIRS:-30} warmup=${WARMUP:-5} runs=${RUNS:-40}
bundler=/usr/lib/llvm-22/bin/clang-offload-bundler
for t in python3 hyperfine cc llvm-config-22 "$bundler"; do
  command -v "$t" >/dev/null || { echo "bench: $t not found" >&2; exit 1; }
done
[ -x build/gpublob-compiler ] || { echo "bench: build/gpublob-compiler missing (ninja)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' HUP INT PIPE TERM
gb="build/gpublob-compiler --no-cache"
in=bench/kernels/saxpy_amdgcn.ll

echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "$(build/gpublob --version); $($bundler --version | sed -n 's/.*version /clang-offload-bundler /p' | head -n 1)"
echo "pair.py: $pairs turns after $warmup warm-ups, medians; hyperfine: $runs runs, median"
echo
printf '| chips | bin ms | fatbin in-process ms | fatbin program ms | in-process - bin | program - in-process | bundler alone ms | same bytes |\n'
printf '|---|---|---|---|---|---|---|---|\n'

# The median of one pair.py line's A or B.
field() { python3 -c 'import json, sys; print("%.1f" % json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }

for chips in gfx90a,gfx942 gfx90a,gfx942,gfx1030,gfx1100; do
  n=$(echo "$chips" | tr ',' '\n' | wc -l)
  d="$tmp/$n"
  mkdir -p "$d"
  python3 bench/pair.py "$pairs" "$warmup" bin -- $gb -t "amdgcn:$chips" "$in" -o "$d/bin/" \
    -- $gb -f fatbin -t "amdgcn:$chips" "$in" -o "$d/in.hipfb" >"$d/a.json"
  python3 bench/pair.py "$pairs" "$warmup" pack -- $gb -f fatbin -t "amdgcn:$chips" "$in" -o "$d/in.hipfb" \
    -- $gb -f fatbin --tool-mode program -t "amdgcn:$chips" "$in" -o "$d/prog.hipfb" >"$d/b.json"
  # the pack step alone: clang's argv over the hsacos of -f bin
  targets=host-x86_64-unknown-linux-gnu inputs=-input=/dev/null
  for c in $(echo "$chips" | tr ',' ' '); do
    targets="$targets,hipv4-amdgcn-amd-amdhsa--$c"
    inputs="$inputs -input=$d/bin/saxpy_amdgcn.amdgcn.$c.hsaco"
  done
  cmd="$bundler -type=o -bundle-align=4096 -targets=$targets $inputs -output=$d/hand.hipfb"
  hyperfine -N -w 3 -r "$runs" --export-json "$d/h.json" "$cmd" >/dev/null 2>&1
  alone=$(python3 -c 'import json, sys; print("%.1f" % (json.load(open(sys.argv[1]))["results"][0]["median"] * 1000))' "$d/h.json")
  same=no
  cmp -s "$d/in.hipfb" "$d/prog.hipfb" && cmp -s "$d/in.hipfb" "$d/hand.hipfb" && same=yes
  bin=$(field "$d/a.json" a_ms) inp=$(field "$d/a.json" b_ms)
  inp2=$(field "$d/b.json" a_ms) prog=$(field "$d/b.json" b_ms)
  python3 -c 'import sys
n, b, i, i2, p, alone, same = sys.argv[1:]
print("| %s | %s | %s | %s | %+.1f | %+.1f | %s | %s |" % (n, b, i, p, float(i) - float(b), float(p) - float(i2), alone, same))' \
    "$n" "$bin" "$inp" "$inp2" "$prog" "$alone" "$same"
done
echo
echo "(in-process appears twice, once per pair: the bin pair's figure in its column, the"
echo "program pair's own in-process median in the difference program - in-process.)"
echo
echo "the in-process writer alone (bench/pack_writer.c, 20,000 bundles of 4080-byte blobs):"
# shellcheck disable=SC2046
cc -std=c11 -O2 -I. -Ibuild $(llvm-config-22 --cflags) bench/pack_writer.c -lxxhash -o "$tmp/pack_writer"
"$tmp/pack_writer" 2
"$tmp/pack_writer" 4
