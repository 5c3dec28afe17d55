#!/bin/sh
# bench/run.sh: gpublob's CLI against the plain shell pipelines, on the same .ll
# inputs, in one run.  Median wall time (hyperfine) and peak memory (max RSS of
# each process, GNU time), as ratios gpublob / pipeline.  Run: ninja bench
#
#   nvptx:  gpublob -t nvptx:sm_90        vs  llc-22 -O3 -mcpu=sm_90 | ptxas -arch=sm_90
#           and, doing the same middle-end work, opt-22 -O3 | llc-22 -O3 | ptxas
#   amdgcn: gpublob -t amdgcn:gfx90a      vs  llc-22 -O3 -filetype=obj && ld.lld -shared
#           and opt-22 -O3 | llc-22 ... && ld.lld
# Environment: RUNS (default 40), WARMUP (default 5).
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-40} warmup=${WARMUP:-5}
for t in hyperfine /usr/bin/time python3 llc-22 opt-22 ld.lld-22; do
  command -v "$t" >/dev/null 2>&1 || { echo "bench: needs $t (apt-get install hyperfine time python3 llvm-22 lld-22)" >&2; exit 2; }
done
[ -x build/gpublob ] || { echo "bench: build first (ninja)" >&2; exit 2; }
ptxas=""
for d in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda; do
  [ -n "$d" ] && [ -x "$d/bin/ptxas" ] && { ptxas=$d/bin/ptxas; break; }
done
[ -n "$ptxas" ] || ptxas=$(command -v ptxas || true)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
echo "machine: $(nproc) cores, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
echo "gpublob $(build/gpublob --version | cut -d' ' -f2), $(llc-22 --version | sed -n 's/.*LLVM version /LLVM /p' | head -n 1), ptxas: ${ptxas:-not found}"
echo "runs: $runs after $warmup warm-up; median wall time; peak memory = max RSS"
echo

rss() { # peak KB of one command (no shell)
  /usr/bin/time -f %M -o "$tmp/rss" "$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; exit 1; }
  cat "$tmp/rss"
}

median() { # median ms of one command line, by hyperfine
  hyperfine -N -w "$warmup" -r "$runs" --export-json "$tmp/h.json" "$1" >/dev/null 2>&1 ||
    { echo "bench: failed: $1" >&2; exit 1; }
  python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$tmp/h.json"
}

median_sh() { # the same for a shell pipeline; the shell's own start is counted, as a user pays it
  hyperfine -w "$warmup" -r "$runs" -S sh --export-json "$tmp/h.json" "$1" >/dev/null 2>&1 ||
    { echo "bench: failed: $1" >&2; exit 1; }
  python3 -c 'import json,sys; print("%.2f" % (json.load(open(sys.argv[1]))["results"][0]["median"]*1000))' "$tmp/h.json"
}

row() { # case gpublob_ms pipe_ms gpublob_kb pipe_kb
  python3 -c 'import sys
c, g, p, gk, pk = sys.argv[1], *map(float, sys.argv[2:])
print("| %s | %.1f | %.1f | %.2f | %.0f | %.0f | %.2f |" % (c, g, p, g / p, gk / 1024, pk / 1024, gk / pk))' "$@"
}

echo "| case | gpublob ms | pipeline ms | wall ratio | gpublob MiB | pipeline MiB | memory ratio |"
echo "|---|---|---|---|---|---|---|"
for k in saxpy matmul; do
  if [ -n "$ptxas" ]; then
    in=bench/kernels/${k}_nvptx.ll
    g=$(median "build/gpublob -t nvptx:sm_90 -O3 $in -o $tmp/g.cubin")
    gk=$(rss build/gpublob -t nvptx:sm_90 -O3 "$in" -o "$tmp/g.cubin")
    llc="llc-22 -O3 -mcpu=sm_90"
    p=$(median_sh "$llc $in -o - | $ptxas -arch=sm_90 -O3 - -o $tmp/p.cubin")
    llck=$(rss $llc "$in" -o "$tmp/p.ptx")
    ptxk=$(rss "$ptxas" -arch=sm_90 -O3 "$tmp/p.ptx" -o "$tmp/p.cubin")
    gk=$((gk + ptxk)) # gpublob's ptxas runs beside it
    row "$k nvptx sm_90: llc-22 -O3 \\| ptxas" "$g" "$p" "$gk" $((llck + ptxk))
    p=$(median_sh "opt-22 -O3 $in | $llc -o - | $ptxas -arch=sm_90 -O3 - -o $tmp/p.cubin")
    optk=$(rss opt-22 -O3 "$in" -o "$tmp/p.bc")
    row "$k nvptx sm_90: opt-22 -O3 \\| llc-22 -O3 \\| ptxas" "$g" "$p" "$gk" $((optk + llck + ptxk))
  else
    echo "| $k nvptx | skipped: no CUDA toolkit (ptxas) | | | | | |"
  fi
  in=bench/kernels/${k}_amdgcn.ll
  g=$(median "build/gpublob -t amdgcn:gfx90a -O3 $in -o $tmp/g.hsaco")
  gk=$(rss build/gpublob -t amdgcn:gfx90a -O3 "$in" -o "$tmp/g.hsaco")
  llc="llc-22 -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=gfx90a --amdhsa-code-object-version=5 -filetype=obj"
  lld="ld.lld-22 -shared --no-undefined $tmp/p.o -o $tmp/p.hsaco"
  p=$(median_sh "$llc $in -o $tmp/p.o 2>/dev/null && $lld")
  llck=$(rss $llc "$in" -o "$tmp/p.o")
  lldk=$(rss $lld)
  gk=$((gk + lldk)) # gpublob's ld.lld runs beside it
  row "$k amdgcn gfx90a: llc-22 -O3 && ld.lld" "$g" "$p" "$gk" $((llck > lldk ? llck : lldk))
  p=$(median_sh "opt-22 -O3 $in | $llc -o $tmp/p.o 2>/dev/null && $lld")
  optk=$(rss opt-22 -O3 "$in" -o "$tmp/p.bc")
  row "$k amdgcn gfx90a: opt-22 -O3 \\| llc-22 -O3 && ld.lld" "$g" "$p" "$gk" $((optk + llck > lldk ? optk + llck : lldk))
done
echo
echo "Memory: processes that run at once add up (a pipe's stages; gpublob and the blob tool it"
echo "starts early); stages joined by && count the larger."
