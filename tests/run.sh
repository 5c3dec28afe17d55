#!/bin/sh
# tests/run.sh: run the build's test programs and add up their closing lines
# ("N passed, N failed, N skipped").  Exit 1 on any failure.
#
#   sh tests/run.sh                     the build's list: the build/tests/test_*
#                                       programs build.ninja's phony `tests` names
#                                       (ninja -t query tests), in its order, each
#                                       one required (a stale binary of a test no
#                                       longer listed does not run)
#   sh tests/run.sh ROOT [TEST...]      from ROOT (ROOT/build/tests/...; the tests'
#                                       relative paths resolve there), only the TESTs
#                                       named (test_jobs ...), each one required; with
#                                       none named, the build's list as far as ROOT's
#                                       build has it (tests/sanitize.sh runs the
#                                       sanitized suite so)
cd "$(dirname "$0")/.." || exit 2
named=""
# tests/test_python.py (the ctypes binding, through build/libgpublob.so): the one
# test that is not a C program, run with python3 after the C programs; not in a
# sanitized suite (ROOT given), whose build has no libgpublob.so.
py=tests/test_python.py
# The build's list, read here (the tree's build.ninja), before any cd.
listed=$(ninja -t query tests 2>/dev/null | sed -n 's|^ *\(build/tests/test_[A-Za-z0-9_]*\)$|\1|p' | tr '\n' ' ')
[ -n "$listed" ] || { echo "tests/run.sh: no test list: ninja -t query tests (run ./configure, then ninja tests)"; exit 2; }
if [ $# -gt 0 ]; then
  py=""
  cd "$1" || exit 2
  shift
  for n in "$@"; do named="$named build/tests/$n"; done
  # no TEST named: the build's list, as far as ROOT's build has it (a sanitized
  # build leaves out the tests that are not sanitized: test_install, test_shared ...)
  if [ -z "$named" ]; then
    for t in $listed; do [ -x "$t" ] && named="$named $t"; done
    [ -n "$named" ] || { echo "tests/run.sh: no test of the build's list is built under $(pwd)"; exit 1; }
  fi
else
  named=$listed
fi
# The CLI caches by default: give the tests a cache of their own, not the user's.
GPUBLOB_CACHE_DIR=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-test-cache-XXXXXX") || exit 2
export GPUBLOB_CACHE_DIR
# and no shared remote cache of the user's (test_remote starts servers of its own)
unset GPUBLOB_REMOTE_CACHE GPUBLOB_REMOTE_PASSWORD GPUBLOB_REMOTE_FAULT
trap 'rm -rf "$GPUBLOB_CACHE_DIR"' EXIT
p=0 f=0 s=0
# Every failing check again at the end (its FAIL line and the two that follow),
# under its test's name: CI shows only the output's tail.
failures=$(mktemp "${TMPDIR:-/tmp}/gpublob-test-failures-XXXXXX") || exit 2
flaky=$(mktemp "${TMPDIR:-/tmp}/gpublob-test-flaky-XXXXXX") || exit 2
trap 'rm -rf "$GPUBLOB_CACHE_DIR" "$failures" "$flaky"' EXIT
# run_test T: its output in $out, its exit status in $rc, its closing line in $last
run_test() {
  case "$1" in *.py) out=$(python3 "$1" 2>&1); rc=$? ;; *) out=$("$1" 2>&1); rc=$? ;; esac
  printf '%s\n' "$out"
  last=$(printf '%s\n' "$out" | tail -n 1)
}
# count_of WORD: the number before WORD in the closing line
count_of() { echo "$last" | sed -n "s/.*\([^0-9]\|^\)\([0-9][0-9]*\) $1.*/\2/p"; }
# clean: the closing line says 0 failed and the program exited 0
clean() {
  case "$last" in *" passed, "*" failed"*) [ "$(count_of failed)" = 0 ] && [ "$rc" -eq 0 ] ;; *) return 1 ;; esac
}
# what_failed T: the run's failing checks, or its missing closing line, each under T's name
what_failed() {
  case "$last" in
    *" passed, "*" failed"*) printf '%s\n' "$out" | grep -A2 '^FAIL ' | sed "s|^|$1: |" ;;
    *) echo "$1: ended without its closing line (exit $rc)" ;;
  esac
  [ "$rc" -eq 0 ] || echo "$1: exit $rc"
}
for t in $named $py; do
  if [ "$t" = tests/test_python.py ]; then
    if ! command -v python3 >/dev/null 2>&1; then echo "== $t: skipped (no python3)"; s=$((s + 1)); continue; fi
  elif [ ! -x "$t" ]; then
    echo "$t is missing"
    f=$((f + 1))
    continue
  fi
  echo "== $t"
  run_test "$t"
  if ! clean; then
    # A failing program runs once more, so that one failure from a machine's load
    # (a timeout on a busy 2-core CI machine) is told from a failure: what failed
    # first is listed at the end either way, and only a second failure counts.
    first=$(what_failed "$t")
    echo "== $t again: it failed; a second run decides"
    run_test "$t"
    if clean; then
      printf '%s\n' "$first" >>"$flaky"
    else
      printf '%s\n' "$first" >>"$failures"
      what_failed "$t (second run)" >>"$failures"
    fi
  fi
  case "$last" in
    *" passed, "*" failed"*)
      p=$((p + $(count_of passed)))
      f=$((f + $(count_of failed)))
      case "$last" in *skipped*) s=$((s + $(count_of skipped))) ;; esac
      [ "$rc" -eq 0 ] || [ "$(count_of failed)" != 0 ] || f=$((f + 1)) ;;
    *) echo "$t ended without its closing line (exit $rc)"; f=$((f + 1)) ;;
  esac
done
if [ -s "$flaky" ]; then
  echo "== failed once, then passed on a second run (each such check is a bug to find: a race or a timing)"
  cut -c1-400 "$flaky"
fi
if [ -s "$failures" ]; then
  echo "== the failing checks again"
  cut -c1-400 "$failures"
fi
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
