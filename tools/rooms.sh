#!/bin/sh
# tools/rooms.sh: every part of the core compiles on its own.  Each file src/parts.h
# lists is compiled alone (-fsyntax-only) with its group's header: src/internal.h for
# the shared group, and src/internal_compile.h after it for the compiler's parts (the
# call and the API among them), src/internal_mlir.h after both for MLIR's, with
# GPUBLOB_PART_ALONE=1 (what a part shares is then extern); the shared group's parts
# a second time as the cache front has them (GPUBLOB_PARTS_FRONT=1).  A call to a
# function no header declares, or a shared function defined without a declaration
# there, is an error, and so is any warning: so no part can come to depend on the
# order of src/parts.h again.  ninja rooms runs it with the build's flags (ninja test
# runs it first); without -DGPUBLOB_MLIR=1 MLIR's parts are left out, as the build
# leaves them.  Prints "N passed, N failed"; exits 1 when one failed.
#
#   sh tools/rooms.sh CC CFLAGS...     (in the repository root)
cd "$(dirname "$0")/.." || exit 2
cc=${1:?usage: tools/rooms.sh CC CFLAGS...}
shift
case " $* " in *" -DGPUBLOB_MLIR=1 "*) with_mlir=1 ;; *) with_mlir=0 ;; esac
out=$(mktemp "${TMPDIR:-/tmp}/gpublob-rooms-XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
passed=0
failed=0
listed=0

# alone PART HOW FLAGS...: PART compiled on its own with FLAGS; HOW names the way
alone() {
  part=$1
  how=$2
  shift 2
  if "$cc" "$@" -fsyntax-only -DGPUBLOB_PART_ALONE=1 -Werror=implicit-function-declaration \
    -Werror=missing-prototypes "src/$part" >"$out" 2>&1 && ! grep -q 'warning:' "$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL src/$part, alone with its group's header$how:"
    head -20 "$out"
  fi
}

group=shared
for part in $(sed -n 's/^#include "\([a-z0-9_]*\.[ch]\)".*/\1/p' src/parts.h); do
  case $part in
  internal_compile.h) group=compile; continue ;;
  internal_mlir.h) group=mlir; continue ;;
  call.c) group=compile ;; # the call and the API: the compiler's group again
  api_mlir.c) group=mlir ;; # the public calls on MLIR's objects
  *.h) continue ;;
  esac
  listed=$((listed + 1))
  case $group in
  shared)
    alone "$part" "" "$@" -include src/internal.h
    alone "$part" " (the cache front's)" "$@" -DGPUBLOB_PARTS_FRONT=1 -include src/internal.h ;;
  compile)
    alone "$part" "" "$@" -include src/internal.h -include src/internal_compile.h ;;
  mlir)
    [ $with_mlir = 1 ] || continue
    alone "$part" "" "$@" -include src/internal.h -include src/internal_compile.h -include src/internal_mlir.h ;;
  esac
done
# every part of the list was looked at: a list read wrong fails, never passes
if [ "$listed" -lt 80 ]; then
  echo "tools/rooms.sh: src/parts.h lists $listed parts here: read wrong"
  failed=$((failed + 1))
fi
echo "$passed passed, $failed failed"
[ $failed = 0 ]
