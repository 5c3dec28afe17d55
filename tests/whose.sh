#!/bin/sh
# tests/whose.sh: whose code each sanitizer or libFuzzer report in a log points
# into.  One line per report:
#
#   ours|llvm<TAB>KIND<TAB>FRAME<TAB>first of ours: FRAME
#
# KIND: "AddressSanitizer: heap-buffer-overflow", "LeakSanitizer: 3 leaks (1 ours)",
# "libFuzzer: deadly signal", "UBSan: runtime error", "ThreadSanitizer: data race"...
# The report's error stack decides (for a leak: each leak's allocation stack; for
# a data race: either access's stack): its first frame that is not the sanitizer
# or libFuzzer runtime, libc (or its interceptor: fwrite), or an allocator
# (malloc, operator new), and not code inlined from a system header.  Ours when
# that frame has a source location in gpublob.c, gpublob.h, gen/, examples/ or
# tests/ of this tree (relative, or under its absolute path); else llvm: a frame
# without a source location, or with one elsewhere (some of LLVM's static
# libraries carry line tables), is LLVM's, MLIR's or libstdc++'s, and so is a
# stack that ends before such a frame (a leak's stack that fast unwinding cut
# short in LLVM; gpublob's own C code calls malloc with frame pointers).
# "first of ours" is the report's first frame in our code anywhere, a hint for
# the reader (an LLVM abort also shows gpublob's call into LLVM).
#
#   sh tests/whose.sh LOG...          exit 0; callers count the lines
# Our files, as the debug information names them: relative to the tree (the
# build runs in its root), or under the tree's absolute path.
root=$(cd "$(dirname "$0")/.." && pwd -P)
for log in "$@"; do
  awk -v root="$root" '
  function loc(f,   m) { # the frame'"'"'s source location, or ""
    if (match(f, / [^ ()]+\.[A-Za-z]+:[0-9]+(:[0-9]+)?( |$)/)) return substr(f, RSTART + 1, RLENGTH - 1)
    return ""
  }
  function ours_loc(l) {
    if (substr(l, 1, length(root) + 1) == root "/") l = substr(l, length(root) + 2)
    sub(/^\.\//, "", l)
    return l ~ /^(gpublob\.[ch]|gen\/[^ ]*|examples\/[^ ]*|tests\/[^ ]*):[0-9]/
  }
  function runtime(f) {
    return f ~ /^ *#[0-9]+ (0x[0-9a-f]+ )?(in )?(__sanitizer|__asan|__lsan|__ubsan|__tsan|__msan|__interceptor|___interceptor|__interception|fuzzer::|asan_|lsan_|tsan_|__libc_|__GI_|__pthread_kill|__cxa_)/ ||
           f ~ /^ *#[0-9]+ (0x[0-9a-f]+ )?(in )?(pthread_kill|raise|abort|__assert_fail|_start|start_thread|clone|clone3|malloc|calloc|realloc|free|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|strdup|strndup|operator new|operator delete|memcpy|memmove|memset|memcmp|strlen|strcmp|strncmp|strcpy|strncpy|strcat|strchr|strrchr|strstr|bcmp)( |\(|\[|$)/ ||
           f ~ /(libc\.so|libm\.so|libstdc\+\+\.so|libgcc_s|ld-linux|compiler-rt|sanitizer_common|(asan|lsan|ubsan|tsan|sanitizer|interception)_[a-z_]*\.cpp|Fuzzer[A-Za-z]*\.cpp)/ ||
           f ~ / (nptl|stdlib|signal|sysdeps|string|libio|assert|malloc|misc|posix|io|csu)\/[^ ]*:[0-9]/
  }
  # A frame without a source location named as C libraries name their functions
  # (fwrite, strtol, inflate): libc, or the sanitizer'"'"'s interceptor of it.  LLVM'"'"'s
  # and MLIR'"'"'s C functions are LLVMName and mlirName; C++ ones have a scope.
  function libc(f,   t) {
    t = f; sub(/^ *#[0-9]+ (0x[0-9a-f]+ )?(in )?/, "", t); sub(/[ (<].*/, "", t)
    return t ~ /^[a-z_][a-z0-9_]*$/
  }
  function sysheader(l) { return l ~ /^\/usr\/(include|lib\/gcc|lib\/llvm-[0-9]+\/include)\// }
  # Classifies the frames of stack s: 1 ours, 0 theirs; frame in dec.
  function classify(s,   i, f, l) {
    for (i = 1; i <= nf[s]; i++) {
      f = fr[s, i]
      if (runtime(f)) continue
      l = loc(f)
      if (l == "" && libc(f)) continue
      if (l != "" && ours_loc(l)) { dec = f; return 1 }
      if (l != "" && sysheader(l)) continue
      dec = f; return 0
    }
    dec = "(no frame past the runtime and allocators)"
    return 0
  }
  function clean(f) {
    sub(/^ *#[0-9]+ (0x[0-9a-f]+ )?(in )?/, "", f); gsub(/ \(BuildId: [0-9a-f]+\)/, "", f); gsub(/ \(\/[^)]*\)/, "", f)
    gsub(/\t/, " ", f); return substr(f, 1, 200)
  }
  function finish(   s, i, o, any, n, no, d) {
    if (kind == "") return
    o = 0; d = ""
    if (kind ~ /^LeakSanitizer/) {
      n = 0; no = 0
      for (s = 1; s <= ns; s++) if (leakstack[s]) { n++; if (classify(s)) { no++; if (!o) d = dec; o = 1 } else if (d == "") d = dec }
      kind = "LeakSanitizer: " n " leak" (n == 1 ? "" : "s") " (" no " ours)"
    } else if (ns >= 1) {
      o = classify(1); d = dec
      if (!o && kind ~ /data race/ && ns >= 2 && classify(2)) { o = 1; d = dec }
    } else if (ubloc != "") {
      o = ours_loc(ubloc); d = ubloc
    } else d = "(no stack)"
    any = ""
    for (s = 1; s <= ns && any == ""; s++)
      for (i = 1; i <= nf[s]; i++) if (ours_loc(loc(fr[s, i]))) { any = clean(fr[s, i]); break }
    printf "%s\t%s\t%s\tfirst of ours: %s\n", o ? "ours" : "llvm", kind, clean(d), any == "" ? "none" : any
    kind = ""; ns = 0; instack = 0; ubloc = ""; delete nf; delete fr; delete leakstack
  }
  function start(k) { finish(); kind = k; ns = 0; instack = 0; ubloc = ""; pendleak = 0 }
  /^==[0-9]+== ?ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer|ThreadSanitizer|MemorySanitizer|UndefinedBehaviorSanitizer): / {
    k = $0; sub(/^==[0-9]+== ?ERROR: /, "", k); sub(/ on (unknown )?address.*/, "", k); sub(/ \(pc 0x.*/, "", k)
    start(k); next
  }
  /^WARNING: ThreadSanitizer: / { k = $0; sub(/^WARNING: /, "", k); sub(/ \(pid=.*/, "", k); start(k); next }
  /: runtime error: / {
    start("UBSan: runtime error"); ubloc = $0; sub(/: runtime error: .*/, "", ubloc); next
  }
  kind == "" { next }
  /^(Direct|Indirect) leak of / { pendleak = 1; instack = 0; next }
  /^ *#[0-9]+ / {
    if (!instack) { ns++; nf[ns] = 0; leakstack[ns] = pendleak; pendleak = 0; instack = 1 }
    nf[ns]++; fr[ns, nf[ns]] = $0; next
  }
  { instack = 0 }
  /^SUMMARY: / { finish() }
  END { finish() }
  ' "$log"
done
exit 0
