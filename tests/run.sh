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
for t in $named $py; do
  if [ "$t" = tests/test_python.py ]; then
    if ! command -v python3 >/dev/null 2>&1; then echo "== $t: skipped (no python3)"; s=$((s + 1)); continue; fi
  elif [ ! -x "$t" ]; then
    echo "$t is missing"
    f=$((f + 1))
    continue
  fi
  echo "== $t"
  case "$t" in *.py) out=$(python3 "$t" 2>&1); rc=$? ;; *) out=$("$t" 2>&1); rc=$? ;; esac
  printf '%s\n' "$out"
  last=$(printf '%s\n' "$out" | tail -n 1)
  case "$last" in
    *" passed, "*" failed"*)
      p=$((p + $(echo "$last" | sed 's/^\([0-9]*\) passed.*/\1/')))
      f=$((f + $(echo "$last" | sed 's/.* \([0-9]*\) failed.*/\1/')))
      case "$last" in *skipped*) s=$((s + $(echo "$last" | sed 's/.* \([0-9]*\) skipped.*/\1/'))) ;; esac
      [ $rc -eq 0 ] || [ "$(echo "$last" | sed 's/.* \([0-9]*\) failed.*/\1/')" != 0 ] || f=$((f + 1)) ;;
    *) echo "$t ended without its closing line (exit $rc)"; f=$((f + 1)) ;;
  esac
done
echo "$p passed, $f failed, $s skipped"
[ "$f" -eq 0 ]
