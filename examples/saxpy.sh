#!/bin/sh
# examples/saxpy.sh [DIR]: the main job on the bundled example, saxpy with a call
# to expf, for every target; prints what gpublob produced into DIR (default
# build/example, emptied first) and checks it.  Run: ninja example
#
# Every step checks its own output (an ELF for the right machine and chip, the
# bundle's magic and entries, spirv-val's verdict, a gpu.binary per gpu.module);
# one that does not match says FAILED and the script exits 1.  An optional part
# that is missing (the CUDA toolkit, ROCm's device libraries, spirv-val, MLIR)
# is said, and the rest goes on.
cd "$(dirname "$0")/.." || exit 2
out=${1:-build/example}
rm -rf "$out" && mkdir -p "$out" || exit 2
# LLVM's tools (llvm-readelf, clang-offload-bundler): configure's llvm-config --bindir.
bindir=${LLVM_BINDIR:-$(sed -n 's/^llvm_bindir = //p' build/config.ninja 2>/dev/null)}
[ -n "$bindir" ] || bindir=$(llvm-config-22 --bindir 2>/dev/null)
readelf=$bindir/llvm-readelf
[ -x "$readelf" ] || { echo "saxpy.sh: no llvm-readelf in '$bindir' (run ./configure)" >&2; exit 2; }
status=0
cuda=yes rocm=yes

fail() { echo "   FAILED: $*"; status=1; }
missing() { echo "   skipped: $*"; }

# gpublob TARGET INPUT OUTPUT [FLAGS]: its exit status; 21 (NOLIB) and 24 (NOTOOL)
# are what a missing toolkit gives, any other failure is the example's.
compile() {
  t=$1 in=$2 o=$3
  shift 3
  build/gpublob -t "$t" "$@" "$in" -o "$o"
}
# Whether llvm-readelf's file header of $1 says machine $2 (and, if given, chip $3
# in its flags).
elf_is() {
  h=$("$readelf" -h "$1" 2>&1) || { fail "$1: llvm-readelf: $h"; return 1; }
  printf '%s\n' "$h" | grep -E '^ *(Machine|Flags):' | sed 's/^ */   /'
  printf '%s\n' "$h" | grep -q "Machine: *$2" || { fail "$1 is no $2 ELF"; return 1; }
  [ -z "${3:-}" ] || printf '%s\n' "$h" | grep -q "Flags:.*, $3\(,\|$\)" || { fail "$1's flags do not name $3"; return 1; }
}

echo "== nvptx (libdevice's __nv_expf linked in)"
compile nvptx examples/saxpy_nvptx.ll "$out/saxpy.cubin"
case $? in
0) elf_is "$out/saxpy.cubin" 'NVIDIA CUDA' sm_90 ;;
21 | 24)
  cuda=no
  missing "no cubin: NVIDIA output needs the CUDA toolkit (ptxas, libdevice); set CUDA_HOME"
  if compile nvptx examples/saxpy_nvptx.ll "$out/saxpy.ptx" -f asm 2>/dev/null; then
    grep -E '^\.(version|target)|\.entry' "$out/saxpy.ptx" | sed 's/^/   /'
    grep -q '\.entry saxpy' "$out/saxpy.ptx" || fail "$out/saxpy.ptx has no .entry saxpy"
  else
    missing "no PTX either: this kernel's expf needs libdevice.10.bc"
  fi
  ;;
*) fail "gpublob -t nvptx" ;;
esac

echo "== amdgcn (ocml's __ocml_exp_f32 linked in)"
compile amdgcn examples/saxpy_amdgcn.ll "$out/saxpy.hsaco"
case $? in
0)
  elf_is "$out/saxpy.hsaco" EM_AMDGPU gfx90a &&
    notes=$("$readelf" --notes "$out/saxpy.hsaco") &&
    printf '%s\n' "$notes" | grep -E 'amdhsa.target|\.symbol:' | sed 's/^ */   /'
  printf '%s\n' "${notes:-}" | grep -q '\.symbol: *saxpy\.kd' || fail "saxpy.hsaco's notes name no saxpy.kd"
  ;;
21) rocm=no; missing "no hsaco: saxpy's expf needs ROCm's device libraries (ocml; apt-get install rocm-device-libs)" ;;
*) fail "gpublob -t amdgcn" ;;
esac

if [ "$rocm" = yes ]; then
  echo "== amdgcn, four chips at once on the job pool (one hsaco each: MI200, MI300, RDNA 3, RDNA 4)"
  if compile amdgcn:gfx90a,gfx942,gfx1100,gfx1201 examples/saxpy_amdgcn.ll "$out/{stem}.{chip}{suffix}"; then
    for c in gfx90a gfx942 gfx1100 gfx1201; do
      echo "   saxpy_amdgcn.$c.hsaco:"
      elf_is "$out/saxpy_amdgcn.$c.hsaco" EM_AMDGPU "$c"
    done
  else
    fail "gpublob -t amdgcn:gfx90a,gfx942,gfx1100,gfx1201"
  fi

  echo "== amdgcn fatbin: a clang offload bundle (an empty host entry, an hsaco for gfx90a:xnack+ and gfx942)"
  if compile amdgcn:gfx90a:xnack+,gfx942 examples/saxpy_amdgcn.ll "$out/saxpy.hipfb" -f fatbin; then
    magic=$(head -c 24 "$out/saxpy.hipfb")
    echo "   magic: $magic"
    [ "$magic" = __CLANG_OFFLOAD_BUNDLE__ ] || fail "saxpy.hipfb does not start as a clang offload bundle"
    if [ -x "$bindir/clang-offload-bundler" ]; then
      entries=$("$bindir/clang-offload-bundler" -list -type=o -input="$out/saxpy.hipfb")
      printf '%s\n' "$entries" | sed 's/^/   entry: /'
      for e in host-x86_64-unknown-linux-gnu- hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+ hipv4-amdgcn-amd-amdhsa--gfx942; do
        printf '%s\n' "$entries" | grep -qx -- "$e" || fail "saxpy.hipfb has no entry $e"
      done
    else
      missing "the bundle's entries: no clang-offload-bundler (apt-get install clang-tools-22)"
    fi
  else
    fail "gpublob -t amdgcn:gfx90a:xnack+,gfx942 -f fatbin"
  fi
fi

if [ "$cuda" = yes ]; then
  echo "== nvptx fatbin: a cubin for sm_80 and sm_90, and sm_90's PTX, in one blob"
  compile nvptx:sm_80,sm_90 examples/saxpy_nvptx.ll "$out/saxpy.fatbin" -f fatbin
  case $? in
  0)
    magic=$(od -A n -t x4 -N 4 "$out/saxpy.fatbin" | tr -d ' ')
    echo "   magic: $magic"
    [ "$magic" = ba55ed50 ] || fail "saxpy.fatbin does not start with a fatbin's magic (ba55ed50)"
    ;;
  24) missing "no fatbin: the CUDA toolkit has no fatbinary" ;;
  *) fail "gpublob -t nvptx:sm_80,sm_90 -f fatbin" ;;
  esac
fi

echo "== spirv (llvm.exp.f32 becomes OpenCL.std exp)"
if compile spirv examples/saxpy_spirv.ll "$out/saxpy.spv"; then
  magic=$(od -A n -t x4 -N 4 "$out/saxpy.spv" | tr -d ' ')
  [ "$magic" = 07230203 ] || fail "saxpy.spv does not start with SPIR-V's magic (07230203)"
  if command -v spirv-val >/dev/null; then
    if spirv-val "$out/saxpy.spv"; then echo "   spirv-val: valid"; else fail "spirv-val refuses saxpy.spv"; fi
  else
    missing "spirv-val: not found (apt-get install spirv-tools)"
  fi
else
  fail "gpublob -t spirv"
fi

if build/gpublob --version | grep -q 'and MLIR'; then
  echo "== MLIR: examples/saxpy.mlir (gpu dialect, with host code), lowered and serialised per target"
  ts="" n=0
  [ "$cuda" = yes ] && ts="-t nvptx:sm_90" n=1
  [ "$rocm" = yes ] && ts="$ts -t amdgcn:gfx90a" n=$((n + 1))
  # shellcheck disable=SC2086
  if [ "$n" = 0 ]; then
    missing "MLIR: its math.exp needs libdevice or ocml, and neither is here"
  elif build/gpublob $ts examples/saxpy.mlir -o "$out/saxpy.out.mlir"; then
    m=$out/saxpy.out.mlir
    grep -o 'gpu.binary @[a-z_]* <[^[]*' "$m" | sed 's/^/   /'
    grep -o '#gpu.object<#[a-z]*\.target<[^>]*>' "$m" | sed 's/^/   /'
    grep -q 'gpu.binary @kernels' "$m" || fail "$m has no gpu.binary @kernels"
    ! grep -q 'gpu.module' "$m" || fail "$m still holds a gpu.module"
    [ "$(grep -o 'bin = "\\7FELF' "$m" | wc -l)" -eq "$n" ] || fail "$m has not $n ELF objects"
  else
    fail "gpublob $ts examples/saxpy.mlir"
  fi
else
  missing "MLIR: gpublob was configured without MLIR (apt-get install libmlir-22-dev)"
fi

ls -l "$out"
[ "$status" = 0 ] && echo "saxpy.sh: every output checked" || echo "saxpy.sh: FAILED (see above)"
exit $status
