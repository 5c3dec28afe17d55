#!/bin/sh
# tests/fuzz/triage.sh: replay crash inputs (build/fuzz/crashes/NAME-*) on their
# harness with whole allocation stacks, and print one block per input: the
# reason (sanitizer report, LLVM ERROR, libFuzzer's verdict), the first frames
# outside the sanitizers and libc, the first frame in gpublob.c or gen/, and whose
# code it is (tests/whose.sh: ours or llvm, as tests/fuzz/run.sh decides).
#
#   sh tests/fuzz/triage.sh build/fuzz/crashes/ir-crash-1234...
cd "$(dirname "$0")/../.." || exit 2
work=$(mktemp "${TMPDIR:-/tmp}/gpublob-triage-XXXXXX") || exit 2
trap 'rm -f "$work"' EXIT
for f in "$@"; do
  h=$(basename "$f" | sed 's/-.*//')
  exe=build/fuzz/fuzz_$h
  [ -x "$exe" ] || { echo "$f: no $exe"; continue; }
  wd="" # a timeout: the watchdog (watchdog.h) shows the busy thread's stack
  case $(basename "$f") in *timeout*) wd=60 ;; esac
  log=$(FUZZ_VERBOSE=1 FUZZ_WATCHDOG=$wd ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=64:detect_leaks=1 \
        UBSAN_OPTIONS=print_stacktrace=1 timeout 240 "$exe" -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout=120 "$f" 2>&1)
  rc=$?
  echo "== $f (fuzz_$h, exit $rc)"
  printf '%s\n' "$log" | grep -a -v 'Running 1 inputs' | grep -a -m 2 -E 'LLVM ERROR|^==[0-9]+== ?ERROR|^SUMMARY|fuzz_[a-z]+: |libFuzzer: (timeout|out-of-memory)|runtime error' | sed 's/^/  /' | cut -c1-240
  printf '%s\n' "$log" | grep -a -E '^ +#[0-9]+ ' |
    grep -a -v -E 'in (__sanitizer|__asan|__lsan|__ubsan|__interceptor|malloc|calloc|realloc|free|operator new|raise|abort|__pthread_kill|fuzzer::)|libc\.so|libc_start|_start |sanitizer_common|/libstdc\+\+' |
    head -n 4 | sed 's/ (\/[^)]*)//; s/ (BuildId[^)]*)//; s/^ */  /' | cut -c1-200
  printf '%s\n' "$log" | grep -a -E '^ +#[0-9]+ .*(gpublob\.c|gen/spec[a-z_]*\.c)' | head -n 1 | sed 's/^ */  first of ours: /' | cut -c1-200
  printf '%s\n' "$log" >"$work"
  sh tests/whose.sh "$work" | cut -f1-3 | sed 's/^/  whose: /; s/\t/: /g' | cut -c1-240
done
