#!/bin/sh
# tools/rooms.sh: every part of the core compiles on its own.  Each file src/parts.h
# lists is compiled alone (-fsyntax-only) with its group's header: src/internal.h for
# the shared group, and src/internal_compile.h after it for the compiler's parts,
# src/internal_mlir.h after both for MLIR's, with GPUBLOB_PART_ALONE=1 (what a part
# shares is then extern).  A call to a function no header declares, or a shared
# function defined without a declaration there, is an error: so no part can come to
# depend on the order of src/parts.h again.  ninja rooms runs it with the build's
# flags; CI runs it.  Prints "N passed, N failed"; exits 1 when one failed.
#
#   sh tools/rooms.sh CC CFLAGS...     (in the repository root)
cd "$(dirname "$0")/.." || exit 2
cc=${1:?usage: tools/rooms.sh CC CFLAGS...}
shift
group=shared
passed=0
failed=0
out=$(mktemp "${TMPDIR:-/tmp}/gpublob-rooms-XXXXXX") || exit 2
trap 'rm -f "$out"' EXIT
for part in $(sed -n 's/^#include "\([a-z_]*\.[ch]\)".*/\1/p' src/parts.h); do
  case $part in
  internal_compile.h) group=compile; continue ;;
  internal_mlir.h) group=mlir; continue ;;
  *.h) continue ;;
  esac
  headers="-include src/internal.h"
  mlir=0
  case $group:$part in
  shared:*) ;;
  *:api_mlir.c | mlir:*) headers="$headers -include src/internal_compile.h -include src/internal_mlir.h"; mlir=1 ;;
  *) headers="$headers -include src/internal_compile.h" ;;
  esac
  # MLIR's parts exist only where the build has MLIR (GPUBLOB_MLIR=1)
  if [ $mlir = 1 ] && ! printf ' %s ' "$*" | grep -q ' -DGPUBLOB_MLIR=1 '; then continue; fi
  if "$cc" "$@" -fsyntax-only -DGPUBLOB_PART_ALONE=1 -Werror=implicit-function-declaration \
    -Werror=missing-prototypes $headers "src/$part" >"$out" 2>&1 && ! grep -q 'warning:' "$out"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "FAIL src/$part (alone, with its group's header):"
    head -20 "$out"
  fi
done
echo "$passed passed, $failed failed"
[ $failed = 0 ]
