#!/bin/sh
# tests/fuzz/run.sh: run each libFuzzer harness of build/fuzz (ninja fuzz builds
# them) for $FUZZ_SECONDS seconds (default 60), each on a scratch copy of its
# seed corpus (tests/fuzz/corpus/NAME, the tree's own inputs, and the crash
# inputs kept in tests/fuzz/crashes-found/NAME-*), and print per harness its
# executions, coverage (cov: and ft: of libFuzzer's last stats line) and its
# crashes, ours and LLVM's.  Logs go to build/fuzz/NAME.log, crash inputs to
# build/fuzz/crashes/, their replays to build/fuzz/replay/.
#
# Whose crash: every crash, leak, timeout or OOM libFuzzer reports is replayed
# alone with whole stacks (fast_unwind_on_malloc=0; a timeout with the harness's
# watchdog, tests/fuzz/watchdog.h, so that the stack is the busy thread's) and
# classified by tests/whose.sh: ours when the first frame of its error stack
# (for a leak, of an allocation stack) past the runtime, libc and the allocators
# is in gpublob.c, gen/ (specgen) or tests/fuzz; else LLVM's (or MLIR's): LLVM
# aborts, leaks and runs out of memory on some inputs, which is why gpublob has
# an isolation mode.  Every crash input kept in tests/fuzz/crashes-found/ is
# also replayed so, each run.  A new crash input, ours or LLVM's, is copied
# there (one per kind and frame; an input with the bytes of a kept one is not)
# with a line in its README, to be committed and described.
# Exit 1 when a crash is ours (or a harness could not run); LLVM's are counted.
#
#   FUZZ_SECONDS=10 ninja fuzz        a short CI pass
#   FUZZ_ONLY="spec cache"            only these harnesses (spec ir mlir cache kernels offload inspect)
#   FUZZ_FORK=N                       libFuzzer -fork=N: N worker processes, and a
#                                     crash, leak, timeout or OOM is saved and the
#                                     run goes on; 0: one process that stops at its
#                                     first crash.  Default: 1 for ir and mlir (LLVM
#                                     and MLIR abort on some inputs), 0 for spec and
#                                     cache (faster; any crash there is ours)
#   FUZZ_KEEP=0                       do not copy new crash inputs into the tree
#   FUZZ_TMPDIR=DIR                   the scratch directory's parent (default
#                                     /dev/shm where writable: the cache harness
#                                     makes and removes a directory per input)
cd "$(dirname "$0")/../.." || exit 2
secs=${FUZZ_SECONDS:-60}
only=${FUZZ_ONLY:-spec ir mlir cache kernels offload inspect}
keep=tests/fuzz/crashes-found
here=$(pwd -P)
parent=${FUZZ_TMPDIR:-}
[ -n "$parent" ] || { [ -d /dev/shm ] && [ -w /dev/shm ] && parent=/dev/shm; } || parent=${TMPDIR:-/tmp}
work=$(mktemp -d "$parent/gpublob-fuzz-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
mkdir -p build/fuzz/crashes build/fuzz/replay
# Stacks in the fuzzing logs too (UBSan prints none by default).
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
export UBSAN_OPTIONS

# replay EXE INPUT LOG TYPE TIMEOUT: INPUT alone on its harness, with whole stacks;
# a timeout (TYPE timeout) with the watchdog at TIMEOUT s and libFuzzer's at twice that.
replay() {
  wd="" lim=$5
  [ "$4" = timeout ] && wd=$5 lim=$(($5 * 2))
  FUZZ_VERBOSE=1 FUZZ_WATCHDOG=$wd TMPDIR=$work/tmp-$h \
    ASAN_OPTIONS=fast_unwind_on_malloc=0:malloc_context_size=64:detect_leaks=1 \
    UBSAN_OPTIONS=print_stacktrace=1 \
    timeout $((lim + 60)) "$1" -rss_limit_mb=4096 -malloc_limit_mb=4096 -timeout="$lim" "$2" >"$3" 2>&1
}

# classify LOG RC: sets whose (ours, llvm, none: it did not crash), what, sig.
classify() {
  line=$(sh tests/whose.sh "$1" | head -n 1)
  err=$(grep -a -m 1 '^LLVM ERROR: ' "$1" | cut -c1-120)
  if [ -n "$line" ]; then
    whose=$(printf '%s' "$line" | cut -f1)
    kind=$(printf '%s' "$line" | cut -f2)
    frame=$(printf '%s' "$line" | cut -f3)
  elif [ "$2" -ne 0 ]; then
    whose=llvm kind="exit $2 without a report" frame=""
  else
    whose=none kind="" frame=""
  fi
  what=$(printf '%s' "$kind${frame:+ at $frame}${err:+; $err}" | sed "s|$here/||g")
  # the kind and the deciding function, without sizes and addresses
  sig="$(printf '%s' "$kind" | sed 's/ (.*//; s/^\([^:]*: [^:]*\):.*/\1/; s/^LeakSanitizer: .*/LeakSanitizer: leak/') at $(printf '%s' "$frame" | sed 's/ [^ ]*:[0-9][0-9:]*.*//; s/ (.*+0x[0-9a-f]*).*//')$(printf '%s' "$err" | cut -c1-60 | sed 's/0x[0-9a-f]*//g; s/[0-9]//g; s/^/; /')"
}

status=0 total_ours=0 total_llvm=0
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
    kernels) max=65536 timeout=10 seeds="" ;;
    offload) max=65536 timeout=10 seeds="" ;;
    inspect) max=65536 timeout=10 seeds="" ;;
    *) echo "fuzz_$h: unknown harness"; status=1; continue ;;
  esac
  ours=0 llvm=0 fixed=0 new=0 replayed=0

  # The crash inputs kept: each replayed alone, and a seed of the corpus.
  for f in "$keep/$h"-*; do
    [ -f "$f" ] || continue
    replayed=$((replayed + 1))
    case $f in *timeout*) type=timeout ;; *) type=crash ;; esac
    rlog=build/fuzz/replay/kept-$(basename "$f").log
    replay "$exe" "$f" "$rlog" $type $timeout
    classify "$rlog" $?
    case $whose in
      ours) ours=$((ours + 1)); echo "fuzz_$h: kept $f still crashes in our code: $what ($rlog)" ;;
      llvm) llvm=$((llvm + 1)) ;;
      none) fixed=$((fixed + 1)); echo "fuzz_$h: kept $f no longer crashes ($rlog)" ;;
    esac
  done

  corpus=$work/corpus-$h art=$work/art-$h
  mkdir -p "$corpus" "$art" "$work/tmp-$h"
  cp tests/fuzz/corpus/$h/* "$corpus"/ 2>/dev/null
  # shellcheck disable=SC2086
  for f in $seeds; do [ -f "$f" ] && cp "$f" "$corpus/tree-$(basename "$f")"; done
  for f in "$keep/$h"-*; do [ -f "$f" ] && cp "$f" "$corpus/kept-$(basename "$f")"; done
  dict=""
  [ -f tests/fuzz/$h.dict ] && dict=-dict=tests/fuzz/$h.dict
  log=build/fuzz/$h.log
  fork=${FUZZ_FORK:-}
  [ -n "$fork" ] || case $h in ir|mlir) fork=1 ;; *) fork=0 ;; esac
  extra=""
  [ "$fork" != 0 ] && extra="-fork=$fork -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
  # No leak check at a process's exit: a worker of -fork runs many inputs, and a
  # leak it reports at its exit names no input (its artifact is an empty one)
  # and its stacks are lost with its log; libFuzzer's check after each input
  # (a leak- artifact, replayed below) stays on.
  # shellcheck disable=SC2086
  ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}leak_check_at_exit=0 \
  TMPDIR=$work/tmp-$h "$exe" -max_total_time="$secs" -max_len=$max -rss_limit_mb=4096 \
    -timeout=$timeout -print_final_stats=1 -artifact_prefix="$art/$h-" \
    $dict $extra "$corpus" >"$log" 2>&1
  rc=$?
  # libFuzzer's stats lines: "#N <what> cov: C ft: F ..." (fork: "#N: cov: C ft: F ... crash: a/b/c")
  last=$(grep -a '^#[0-9]*:\{0,1\}[[:space:]].*cov: ' "$log" | tail -n 1)
  execs=$(grep -a '^stat::number_of_executed_units:' "$log" | tail -n 1 | sed 's/.*: *//')
  [ -n "$execs" ] || execs=$(printf '%s\n' "$last" | sed -n 's/^#\([0-9]*\).*/\1/p')
  cov=$(printf '%s\n' "$last" | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  ft=$(printf '%s\n' "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')

  # Each crash input of this run: replayed, classified, kept when new.
  found=0
  for a in "$art"/*; do
    [ -f "$a" ] || continue
    found=$((found + 1))
    name=$(basename "$a")
    cp "$a" build/fuzz/crashes/
    same=""
    for k in "$keep/$h"-*; do [ -f "$k" ] && cmp -s "$a" "$k" && { same=$k; break; }; done
    if [ -n "$same" ]; then # replayed above already
      echo "fuzz_$h: $name: the bytes of $same"; continue
    fi
    type=$(printf '%s' "$name" | sed "s/^$h-//; s/-[0-9a-f]*\$//")
    rlog=build/fuzz/replay/$name.log
    replay "$exe" "$a" "$rlog" "$type" $timeout
    classify "$rlog" $?
    if [ "$whose" = none ]; then # not again: what the fuzzing log said, if it says
      classify "$log" 0
      [ "$whose" = none ] && whose=llvm what="$type that did not happen again on replay" sig="$type, not replayed"
    fi
    case $whose in ours) ours=$((ours + 1)) ;; *) llvm=$((llvm + 1)) ;; esac
    echo "fuzz_$h: $name: $whose: $what ($rlog)"
    [ "${FUZZ_KEEP:-1}" = 0 ] && continue
    if grep -qF "[sig: fuzz_$h: $sig]" "$keep/README" 2>/dev/null; then
      echo "  (not kept: $keep/README has a crash input of this kind and frame)"; continue
    fi
    k=$keep/$h-$whose-$type-$(sha1sum <"$a" | cut -c1-12)
    cp "$a" "$k"
    new=$((new + 1))
    printf '%s: fuzz_%s: %s (%s; kept by tests/fuzz/run.sh on %s, to be described) [sig: fuzz_%s: %s]\n' \
      "$(basename "$k")" "$h" "$what" "$( [ "$whose" = ours ] && echo "OURS" || echo "LLVM's")" \
      "$(date -u +%Y-%m-%d)" "$h" "$sig" >>"$keep/README"
    echo "  kept as $k (commit it; describe it in $keep/README)"
  done
  # A run that failed without a crash input: the harness did not run
  if [ "$rc" -ne 0 ] && [ "$found" -eq 0 ]; then
    echo "fuzz_$h: exit $rc without a crash input:"; grep -a -m 5 -E 'ERROR|error|INFO: -max' "$log" | sed 's/^/  /'; status=1
  fi
  echo "fuzz_$h: ${execs:-?} executions, cov ${cov:-?}, ft ${ft:-?}; crashes: $ours ours, $llvm LLVM's (kept inputs: $replayed replayed, $fixed no longer crash; this run: $found crash inputs, $new new kept) (exit $rc; $log)"
  [ "$ours" -eq 0 ] || status=1
  total_ours=$((total_ours + ours)) total_llvm=$((total_llvm + llvm))
done
if [ "$total_ours" -gt 0 ]; then
  echo "fuzz: $total_ours crashes in gpublob's own code (above; replays in build/fuzz/replay/), $total_llvm LLVM's"
elif [ "$status" -ne 0 ]; then
  echo "fuzz: a harness could not run (above); $total_llvm crashes, all LLVM's"
else
  echo "fuzz: none in gpublob's own code; $total_llvm LLVM's (known: $keep/README)"
fi
exit "$status"
