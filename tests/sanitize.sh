#!/bin/sh
# tests/sanitize.sh asan|tsan [TEST...]: the test suite on the sanitized build
# (ninja test-asan, ninja test-tsan build it into build/SAN/root/build/, see
# tests/sanitize.ninja), run by tests/run.sh from build/SAN/root, whose every
# other entry is a link to the tree's (examples/, tests/, targets/, gen/...):
# the tests' relative paths (build/gpublob, examples/saxpy.mlir) resolve there.
# Without TESTs, all of them (asan); tsan runs the pool's tests.
#
# Every report of every process (a test, the CLI it runs, the isolation helper
# and its children) goes to a file of its own under build/SAN/reports/, not to
# the test's stderr: a CLI whose exit status a test does not check cannot hide
# one.  The first report stops its process with exit 99.  The run fails when a
# test fails or any report was written; each report is printed, with whose code
# it points into (tests/whose.sh: ours, or llvm).
#
# ASan: halt_on_error, detect_leaks=1, stack-use-after-return, strict string
# checks, initialisation order; UBSan: print_stacktrace, halt (the code is built
# with -fno-sanitize-recover=undefined).  TSan: its default die_after_fork=1
# stays: the isolation helper is forked before a call starts threads, and each
# job's child starts one, so a helper forked from a process with threads would
# end its children here ("starting new threads after multi-threaded fork"),
# which is a finding, not noise; TSan watches the helper's children as any
# process (a race in one is reported).
# LeakSanitizer suppressions, when tests/lsan.supp exists, and ThreadSanitizer's,
# tests/tsan.supp, name only LLVM and MLIR frames, each with why it is no bug.  Forked children leave with _exit and are not leak-checked; the
# helper is killed (SIGKILL) by its host.
cd "$(dirname "$0")/.." || exit 2
san=${1:-}
case "$san" in
  asan) what=AddressSanitizer ;;
  tsan) what=ThreadSanitizer ;;
  *) echo "usage: sh tests/sanitize.sh asan|tsan [TEST...]" >&2; exit 2 ;;
esac
shift
root=build/$san/root
if [ ! -x "$root/build/gpublob-compiler" ]; then
  echo "$root/build/gpublob-compiler is missing: ninja test-$san builds it"; exit 2
fi
# A test build.ninja builds and tests/sanitize.ninja does not: the suite would be partial.
if [ $# -eq 0 ]; then
  lacks=$(sed -n 's/^build build\/tests\/\(test_[A-Za-z0-9_]*\): link .*/\1/p' build.ninja |
          while read -r t; do grep -q "^build \$r/build/tests/$t: slink" tests/sanitize.ninja || printf ' %s' "$t"; done)
  if [ -n "$lacks" ]; then
    echo "tests/sanitize.ninja lacks$lacks: add each as build.ninja has it"; exit 1
  fi
fi
for e in *; do
  [ "$e" = build ] || ln -sfn "../../../$e" "$root/$e" || exit 2
done
logs=$(pwd)/build/$san/reports
rm -rf "$logs" && mkdir -p "$logs" || exit 2
common="halt_on_error=1:exitcode=99:log_path=$logs/$san:print_summary=1:handle_abort=0"
supp=""
[ -f tests/lsan.supp ] && supp=":suppressions=$(pwd)/tests/lsan.supp:print_suppressions=0"
ASAN_OPTIONS="$common:detect_leaks=1:detect_stack_use_after_return=1:strict_string_checks=1:check_initialization_order=1:strict_init_order=1"
UBSAN_OPTIONS="$common:print_stacktrace=1"
LSAN_OPTIONS="exitcode=99$supp"
tsupp=""
[ -f tests/tsan.supp ] && tsupp=":suppressions=$(pwd)/tests/tsan.supp:print_suppressions=0"
# die_after_fork=0: the isolation helper is forked by a host with threads (MLIR's
# thread pool, the pool's workers) and its children start the thread a job runs
# on; TSan cannot follow threads across such a fork and would otherwise end the
# child (spirv's jobs, isolated always, reach that in test_mlir).
TSAN_OPTIONS="$common:second_deadlock_stack=1:report_signal_unsafe=1:die_after_fork=0$tsupp"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS
# The build is what it claims: the runtime answers help=1 (an old build/config.ninja
# without asan_cflags/tsan_cflags would build the suite without a sanitizer).
case "$san" in
  asan) chk=$(ASAN_OPTIONS=help=1:log_path=stderr "$root/build/gpublob" --version 2>&1) ;;
  tsan) chk=$(TSAN_OPTIONS=help=1:log_path=stderr "$root/build/gpublob" --version 2>&1) ;;
esac
case "$chk" in
  *"Available flags for $what"*) ;;
  *) echo "$root/build/gpublob is not built with $what: run ./configure again, then ninja test-$san"; exit 2 ;;
esac
start=$(date +%s)
sh tests/run.sh "$root" "$@"
rc=$?
echo "$san: the suite took $(( $(date +%s) - start )) s"
n=0 ours=0
for r in "$logs"/*; do
  [ -f "$r" ] || continue
  n=$((n + 1))
  echo "== $san report: $r"
  cat "$r"
  w=$(sh tests/whose.sh "$r")
  printf '%s\n' "$w" | sed 's/^/  whose: /'
  ours=$((ours + $(printf '%s\n' "$w" | grep -c '^ours')))
done
if [ "$n" -gt 0 ]; then
  echo "$san: $n sanitizer report(s), $ours pointing into gpublob's own code (above; files in $logs)"
  exit 1
fi
echo "$san: no sanitizer reports"
[ "$rc" -eq 0 ]
