#!/bin/sh
# examples/saxpy.sh: the main job on the bundled example, saxpy with a call to
# expf, for every target; prints what gpublob produced.  Run: ninja example
cd "$(dirname "$0")/.." || exit 2
out=build/example
mkdir -p "$out"
readelf=/usr/lib/llvm-22/bin/llvm-readelf
status=0

run() { # target input output [flags]
  t=$1 in=$2 o=$3; shift 3
  if build/gpublob -t "$t" "$@" "$in" -o "$o"; then :; else status=1; return 1; fi
}

echo "== nvptx (libdevice's __nv_expf linked in)"
if run nvptx examples/saxpy_nvptx.ll "$out/saxpy.cubin"; then
  $readelf -h "$out/saxpy.cubin" | grep -E 'Machine|Flags'
else
  echo "   no cubin: NVIDIA output needs the CUDA toolkit (ptxas, libdevice); set CUDA_HOME."
  echo "   PTX alone (-f asm) needs libdevice.10.bc for this kernel's expf:"
  status=0
  run nvptx examples/saxpy_nvptx.ll "$out/saxpy.ptx" -f asm && grep -E '^\.(version|target)|\.entry' "$out/saxpy.ptx"
  status=0
fi

echo "== amdgcn (ocml's __ocml_exp_f32 linked in)"
run amdgcn examples/saxpy_amdgcn.ll "$out/saxpy.hsaco" &&
  $readelf -h --notes "$out/saxpy.hsaco" | grep -E 'Machine|Flags|amdhsa.target|\.symbol:'

echo "== amdgcn, four chips at once on the job pool (one hsaco each: MI200, MI300, RDNA 3, RDNA 4)"
run amdgcn:gfx90a,gfx942,gfx1100,gfx1201 examples/saxpy_amdgcn.ll "$out/{stem}.{chip}{suffix}" &&
  for c in gfx90a gfx942 gfx1100 gfx1201; do
    printf '   saxpy_amdgcn.%s.hsaco: ELF flags name ' "$c"
    $readelf -h "$out/saxpy_amdgcn.$c.hsaco" | sed -n 's/.*Flags:.*0x[0-9a-f]*, \(gfx[0-9a-z]*\).*/\1/p'
  done

echo "== amdgcn fatbin: a clang offload bundle (an empty host entry, an hsaco for gfx90a:xnack+ and gfx942)"
run amdgcn:gfx90a:xnack+,gfx942 examples/saxpy_amdgcn.ll "$out/saxpy.hipfb" -f fatbin &&
  { head -c 24 "$out/saxpy.hipfb"; echo; } | sed 's/^/   magic: /' &&
  if [ -x /usr/lib/llvm-22/bin/clang-offload-bundler ]; then
    /usr/lib/llvm-22/bin/clang-offload-bundler -list -type=o -input="$out/saxpy.hipfb" | sed 's/^/   entry: /'
  fi

if build/gpublob --tool-dir /nonexistent --list-targets | grep -q 'one job: .*ptxas (program)'; then
  echo "== nvptx fatbin: a cubin for sm_80 and sm_90, and sm_90's PTX, in one blob"
  run nvptx:sm_80,sm_90 examples/saxpy_nvptx.ll "$out/saxpy.fatbin" -f fatbin &&
    od -A d -t x4 -N 4 "$out/saxpy.fatbin" | head -n 1 | sed 's/^/   magic: /'
fi

echo "== spirv (llvm.exp.f32 becomes OpenCL.std exp)"
run spirv examples/saxpy_spirv.ll "$out/saxpy.spv" &&
  { command -v spirv-val >/dev/null && spirv-val "$out/saxpy.spv" && echo "   spirv-val: valid"; }

if build/gpublob --version | grep -q 'and MLIR'; then
  echo "== MLIR: examples/saxpy.mlir (gpu dialect, with host code), lowered and serialised per target"
  ts="-t amdgcn:gfx90a"
  build/gpublob --tool-dir /nonexistent --list-targets | grep -q '^nvptx.*not found' || ts="-t nvptx:sm_90 $ts"
  # shellcheck disable=SC2086
  if build/gpublob $ts examples/saxpy.mlir -o "$out/saxpy.out.mlir"; then
    grep -o 'gpu.binary @[a-z_]* <[^[]*\|#gpu.object<#[a-z]*.target<[^>]*>, bin = "\\7FELF' "$out/saxpy.out.mlir"
  else
    status=1
  fi
else
  echo "== MLIR: skipped (gpublob was configured without MLIR)"
fi

ls -l "$out"
exit $status
