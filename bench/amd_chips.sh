#!/bin/sh
# bench/amd_chips.sh: which amdgcn chips a kernel calling ocml and ockl compiles for
# with the device libraries found here, as docs/benchmarks.md's table: for each chip of the
# spec, the exit status, the wave size and the code object's target, read back with
# llvm-readelf.  Run from the root after ninja.
set -u
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gpublob-chips-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
readelf=$(command -v llvm-readelf-22 || echo /usr/lib/llvm-22/bin/llvm-readelf)
cat > "$tmp/k.ll" <<'IR'
target triple = "amdgcn-amd-amdhsa"
declare float @__ocml_sin_f32(float)
declare i64 @__ockl_get_local_size(i32)
define amdgpu_kernel void @k(ptr addrspace(1) %p) {
  %x = load float, ptr addrspace(1) %p
  %y = call float @__ocml_sin_f32(float %x)
  %n = call i64 @__ockl_get_local_size(i32 0)
  %f = uitofp i64 %n to float
  %z = fadd float %y, %f
  store float %z, ptr addrspace(1) %p
  ret void
}
IR
chips=$(sed -n '/^\[target amdgcn\]/,/^\[target/p' targets/targets.spec |
  sed -n '/^chips /,/[^\\]$/p' | sed 's/^chips *=//; s/\\//g' | tr -s ' \n' ' ')
echo "| chip | compiles | wave | code object | target (amdhsa.target) |"
echo "|---|---|---|---|---|"
for c in $chips; do
  if build/gpublob --no-cache -t "amdgcn:$c" "$tmp/k.ll" -o "$tmp/k.hsaco" 2>"$tmp/err"; then
    wave=$("$readelf" --notes "$tmp/k.hsaco" | sed -n 's/.*\.wavefront_size: *\([0-9]*\).*/\1/p' | head -1)
    abi=$("$readelf" -h "$tmp/k.hsaco" | sed -n 's/.*ABI Version: *\([0-9]*\).*/\1/p')
    tgt=$("$readelf" --notes "$tmp/k.hsaco" | sed -n "s/.*amdhsa.target: *'*\([^']*\)'*.*/\1/p" | head -1)
    echo "| $c | yes | $wave | v$((abi + 2)) | $tgt |"
  else
    echo "| $c | no: $(head -1 "$tmp/err" | cut -c1-80) | | | |"
  fi
done
