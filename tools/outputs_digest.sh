#!/bin/sh
# tools/outputs_digest.sh: a digest of every output of a wide set of gpublob
# commands, one "SHA256  NAME" line each, sorted, on stdout.  A refactor changes no
# output byte: run it before and after, and diff the two lists.
#
#   sh tools/outputs_digest.sh [GPUBLOB] > before.txt     (default build/gpublob-compiler)
#
# The set: examples/saxpy_amdgcn.ll for every AMD chip at every ABI version, with
# the metadata JSON and the C header; each example in every format of its target;
# AMD and NVIDIA packs; the MLIR examples and tests/mlir's modules; the MLIR batch
# of bench/modules.py (16 gpu.modules, NVIDIA and AMD); the kernels of
# tests/clang made LLVM IR by clang-22 (as a frontend writes it) for their targets;
# --list-targets.  What this machine lacks (CUDA, clang-22, ROCm's bitcode, MLIR) is
# left out, and said on stderr: compare lists made on one machine.
cd "$(dirname "$0")/.." || exit 2
gpublob=${1:-build/gpublob-compiler}
[ -x "$gpublob" ] || { echo "no $gpublob: build first (ninja)" >&2; exit 2; }
gpublob=$(realpath "$gpublob")
bindir=$(llvm-config-22 --bindir 2>/dev/null || echo /usr/lib/llvm-22/bin)
# one fixed place, so that an output naming its path names the same one each run
out=${TMPDIR:-/tmp}/gpublob-outputs-digest
rm -rf "$out" && mkdir -p "$out" || exit 2
trap 'rm -rf "$out"' EXIT
# run NAME ARGS...: the outputs land under $out/NAME/; a failing command is a line too
run() {
  name=$1
  shift
  mkdir -p "$out/$name"
  if ! "$gpublob" --no-cache "$@" 2>"$out/$name.err"; then
    echo "failed: $name" >"$out/$name/FAILED"
    cat "$out/$name.err" >>"$out/$name/FAILED"
  fi
}
amd_chips=$("$gpublob" --list-targets 2>/dev/null | awk '/^amdgcn /{on=1; next} /^[a-z]/{on=0} on && /chips:/{sub(/.*chips:/, ""); print; c=1; next} on && c && /^         [g]/{print; next} {c=0}' | tr -s ' \n' ',' | sed 's/^,//; s/,$//')
if [ -n "$amd_chips" ]; then
  # a call a chip and ABI: a chip that refuses an ABI (gfx12 has no v4) is one FAILED line
  for chip in $(echo "$amd_chips" | tr ',' ' '); do
    for abi in 400 500 600; do
      run "amd-$chip-abi$abi" -t "amdgcn:$chip" --abi "$abi" examples/saxpy_amdgcn.ll -o "$out/amd-$chip-abi$abi/" \
        --metadata "$out/amd-$chip-abi$abi/meta.json" --emit-c "$out/amd-$chip-abi$abi/blobs.h"
    done
  done
elif "$gpublob" --list-targets 2>/dev/null | grep -q '^amdgcn '; then
  echo "outputs_digest: --list-targets names amdgcn, but its chips were not read (has its layout changed?)" >&2
  exit 1
fi
for f in bin asm llvm ll; do
  run "amd-$f" -t amdgcn:gfx90a,gfx942,gfx1100 -f "$f" examples/saxpy_amdgcn.ll -o "$out/amd-$f/"
  run "spirv-$f" -t spirv -f "$f" examples/saxpy_spirv.ll -o "$out/spirv-$f/"
  run "nv-$f" -t nvptx:sm_80,sm_90 -f "$f" examples/saxpy_nvptx.ll -o "$out/nv-$f/"
done
run amd-pack -t amdgcn:gfx90a:xnack+,gfx942 -f pack examples/saxpy_amdgcn.ll -o "$out/amd-pack/"
run nv-pack -t nvptx:sm_80,sm_90 -f pack examples/saxpy_nvptx.ll -o "$out/nv-pack/"
for k in bench/kernels/*.ll; do
  t=$(basename "$k" .ll | sed 's/.*_//')
  case "$t" in amdgcn) chips=amdgcn:gfx90a,gfx942 ;; nvptx) chips=nvptx:sm_80,sm_90 ;; *) continue ;; esac
  for f in bin asm; do run "kern-$(basename "$k" .ll)-$f" -t "$chips" -f "$f" "$k" -o "$out/kern-$(basename "$k" .ll)-$f/"; done
done
for m in examples/saxpy.mlir tests/mlir/*.mlir; do
  n=$(basename "$m" .mlir)
  run "mlir-$n" "$m" -o "$out/mlir-$n/$n.mlir"
  run "mlir-$n-amd" -t amdgcn:gfx90a "$m" -o "$out/mlir-$n-amd/$n.mlir"
done
# the MLIR batch (bench/modules.py): 16 gpu.modules in the gpu dialect, for NVIDIA
# and, as #rocdl.target, for AMD
if command -v python3 >/dev/null 2>&1; then
  mkdir -p "$out/batch-src"
  python3 bench/modules.py 16 sm_80,sm_90 >"$out/batch-src/nv.mlir"
  python3 bench/modules.py 16 gfx90a,gfx942 |
    sed 's/#nvvm.target<chip = "\(gfx[0-9a-z]*\)", features = "+ptx80", O = 3>/#rocdl.target<chip = "\1", O = 3>/g' \
    >"$out/batch-src/amd.mlir"
  for b in nv amd; do run "batch-$b" -j 2 "$out/batch-src/$b.mlir" -o "$out/batch-$b/$b.out.mlir"; done
  rm -rf "$out/batch-src"
fi
# tests/clang's kernels as clang-22 writes them, and through gpublob for their target
if command -v clang-22 >/dev/null 2>&1; then
  mkdir -p "$out/ir"
  for src in tests/clang/*.cu tests/clang/*.hip tests/clang/*.cl; do
    b=$(basename "$src")
    case "$src" in
    *.cu) flags="-x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudalib -nocudainc" t=nvptx:sm_80 ;;
    *.hip) flags="-x hip --cuda-device-only --offload-arch=gfx90a -nogpulib -nogpuinc -cuid=digest" t=amdgcn:gfx90a ;;
    *.cl) flags="-x cl -cl-std=CL2.0 -target amdgcn-amd-amdhsa -mcpu=gfx90a -nogpulib" t=amdgcn:gfx90a ;;
    esac
    # shellcheck disable=SC2086
    clang-22 $flags -Itests/clang -O2 -emit-llvm -S "$src" -o "$out/ir/$b.ll" 2>/dev/null || continue
    for f in bin asm; do run "clang-$b-$f" -t "$t" -f "$f" "$out/ir/$b.ll" -o "$out/clang-$b-$f/"; done
  done
  rm -rf "$out/ir"
else
  echo "outputs_digest: no clang-22: tests/clang's kernels left out" >&2
fi
"$gpublob" --list-targets >"$out/list-targets.txt" 2>&1
rm -f "$out"/*.err
(cd "$out" && find . -type f | sort | while read -r f; do printf '%s  %s\n' "$(sha256sum <"$f" | cut -c1-64)" "$f"; done)
