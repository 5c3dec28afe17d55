#!/bin/sh
# tests/fuzz/run.sh: run each libFuzzer harness of build/fuzz (ninja fuzz builds
# them) for $FUZZ_SECONDS seconds (default 60), each on a scratch copy of its
# seed corpus (tests/fuzz/corpus/NAME plus the tree's own inputs), and print per
# harness its executions, coverage (cov: and ft: of libFuzzer's last stats line)
# and crashes.  Crash inputs go to build/fuzz/crashes/, logs to build/fuzz/NAME.log.
# Exit 1 when any harness crashed (or could not run).
#
#   FUZZ_SECONDS=10 ninja fuzz        a short CI pass
#   FUZZ_ONLY="spec cache"            only these harnesses (spec ir mlir cache)
#   FUZZ_FORK=N                       libFuzzer -fork=N: N worker processes, and a
#                                     crash, leak, timeout or OOM is saved and the
#                                     run goes on; 0: one process that stops at its
#                                     first crash.  Default: 1 for ir and mlir (LLVM
#                                     and MLIR abort on some inputs), 0 for spec and
#                                     cache (faster; any crash there is ours)
#   FUZZ_TMPDIR=DIR                   the scratch directory's parent (default
#                                     /dev/shm where writable: the cache harness
#                                     makes and removes a directory per input)
cd "$(dirname "$0")/../.." || exit 2
secs=${FUZZ_SECONDS:-60}
only=${FUZZ_ONLY:-spec ir mlir cache}
parent=${FUZZ_TMPDIR:-}
[ -n "$parent" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && parent=/dev/shm; } || parent=${TMPDIR:-/tmp}
work=$(mktemp -d "$parent/gpublob-fuzz-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p build/fuzz/crashes
status=0
for h in $only; do
  exe=build/fuzz/fuzz_$h
  if [ ! -x "$exe" ]; then
    echo "fuzz_$h: $exe is missing (ninja fuzz-build)"; status=1; continue
  fi
  # -max_len: room for the seeds and some growth; IR and specs are the largest
  case $h in
    spec) max=16384 timeout=10 seeds="targets/targets.spec tests/rdna.spec" ;;
    ir) max=16384 timeout=60 seeds="examples/*.ll" ;;
    mlir) max=8192 timeout=60 seeds="examples/saxpy.mlir tests/mlir/*.mlir" ;;
    cache) max=4096 timeout=10 seeds="" ;;
    *) echo "fuzz_$h: unknown harness"; status=1; continue ;;
  esac
  corpus=$work/corpus-$h
  mkdir -p "$corpus" "$work/tmp-$h"
  cp tests/fuzz/corpus/$h/* "$corpus"/ 2>/dev/null
  # shellcheck disable=SC2086
  for f in $seeds; do [ -f "$f" ] && cp "$f" "$corpus/tree-$(basename "$f")"; done
  dict=""
  [ -f tests/fuzz/$h.dict ] && dict=-dict=tests/fuzz/$h.dict
  before=$(ls build/fuzz/crashes | grep -c "^$h-")
  log=build/fuzz/$h.log
  fork=${FUZZ_FORK:-}
  [ -n "$fork" ] || case $h in ir|mlir) fork=1 ;; *) fork=0 ;; esac
  extra=""
  [ "$fork" != 0 ] && extra="-fork=$fork -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
  # shellcheck disable=SC2086
  TMPDIR=$work/tmp-$h "$exe" -max_total_time="$secs" -max_len=$max -rss_limit_mb=4096 \
    -timeout=$timeout -print_final_stats=1 -artifact_prefix=build/fuzz/crashes/$h- \
    $dict $extra "$corpus" >"$log" 2>&1
  rc=$?
  # libFuzzer's stats lines: "#N <what> cov: C ft: F ..." (fork: "#N: cov: C ft: F ... crash: a/b/c")
  last=$(grep -a '^#[0-9]*:\{0,1\}[[:space:]].*cov: ' "$log" | tail -n 1)
  execs=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -n 1 | sed 's/.*: *//')
  [ -n "$execs" ] || execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
  cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  crashes=$(( $(ls build/fuzz/crashes | grep -c "^$h-") - before ))
  echo "fuzz_$h: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}, $crashes crashes (exit $rc; $log)"
  if [ "$crashes" -gt 0 ] || [ "$rc" -ne 0 ]; then
    status=1
    grep -a -m 3 -E '^==[0-9]+==ERROR|^SUMMARY|LLVM ERROR|libFuzzer: (deadly signal|fuzz target exited|timeout|out-of-memory)' "$log" | sed 's/^/  /'
  fi
done
[ "$status" -eq 0 ] && echo "fuzz: no crashes" || echo "fuzz: crashes or failures above; inputs in build/fuzz/crashes/"
exit "$status"
