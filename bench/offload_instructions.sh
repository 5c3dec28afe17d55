#!/bin/sh
# bench/offload_instructions.sh: what -f offload's container adds to a compile, in
# instructions: the same call (examples/saxpy_amdgcn.ll for gfx90a and gfx942:xnack+,
# -j1, no cache) as -f bin and as -f offload, each under valgrind's callgrind, whose
# "Collected" is every instruction the process ran.  valgrind cannot read LLVM 22's
# debug information in gpublob-compiler, so it runs a stripped copy (the same code).
#
#   sh bench/offload_instructions.sh [INPUT] [TARGETS]
cd "$(dirname "$0")/.." || exit 2
input=${1:-examples/saxpy_amdgcn.ll}
targets=${2:-amdgcn:gfx90a,gfx942:xnack+}
command -v valgrind >/dev/null || { echo "no valgrind (apt-get install valgrind)" >&2; exit 2; }
[ -x build/gpublob-compiler ] || { echo "no build/gpublob-compiler: ninja first" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-offload-instr-XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
strip -o "$work/gpublob-compiler" build/gpublob-compiler || exit 2
count() { # FORMAT OUT: the instructions of one call
  valgrind --tool=callgrind --callgrind-out-file="$work/cg.$1" "$work/gpublob-compiler" --no-cache -j1 \
    -t "$targets" -f "$1" "$input" -o "$2" >"$work/log.$1" 2>&1 || { cat "$work/log.$1" >&2; exit 1; }
  sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$work/log.$1"
}
mkdir -p "$work/bin"
bin=$(count bin "$work/bin/")
off=$(count offload "$work/k.offload")
echo "-f bin:     $bin instructions"
echo "-f offload: $off instructions"
awk -v b="$bin" -v o="$off" 'BEGIN { printf "offload / bin: %.5f (%+.3f %%)\n", o / b, (o - b) * 100 / b }'
