/* test_bad_chips: bad chips, features and formats through the CLI, device libraries missing or
** broken (NOLIB), AMD target ids, ABI versions and generic targets, and LLVM's
** diagnostics of error severity (BACKEND); then a bin blob with no entry point (a
** warning).  The harness and the invariants every case keeps: tests/bad.h */
#include "bad.h"

static const char sin_half_nvptx[] = /* llvm.sin.f16 has no NVPTX lowering and no C function (libm) */
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load half, ptr addrspace(1) %p\n"
    "  %e = call half @llvm.sin.f16(half %v)\n"
    "  store half %e, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare half @llvm.sin.f16(half)\n";

static const char dash_symbol[] = /* a public PTX symbol may not hold '-' */
    NVT
    "define void @\"my-helper\"(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  call void @\"my-helper\"(ptr addrspace(1) %p)\n  ret void\n}\n";

static const char dash_global[] =
    NVT "@\"my-counter\" = addrspace(1) global i32 0\n"
    "define ptx_kernel void @k() {\n  store i32 1, ptr addrspace(1) @\"my-counter\"\n  ret void\n}\n";

static const char wgmma_sm80[] = /* wgmma needs sm_90a */
    NVT
    "define ptx_kernel void @k() {\n"
    "  call void @llvm.nvvm.wgmma.fence.sync.aligned()\n"
    "  call void @llvm.nvvm.wgmma.commit_group.sync.aligned()\n"
    "  ret void\n}\n"
    "declare void @llvm.nvvm.wgmma.fence.sync.aligned()\n"
    "declare void @llvm.nvvm.wgmma.commit_group.sync.aligned()\n";

static const char mfma_gfx803[] = /* MFMA needs gfx908 or later */
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float 1.0, float 2.0, <32 x float> zeroinitializer, i32 0, i32 0, i32 0)\n"
    "  store <32 x float> %r, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare <32 x float> @llvm.amdgcn.mfma.f32.32x32x1f32(float, float, <32 x float>, i32, i32, i32)\n";

static const char permlane_gfx90a[] = /* permlane16 is gfx10+ */
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p, i32 %v) {\n"
    "  %r = call i32 @llvm.amdgcn.permlane16.i32(i32 %v, i32 %v, i32 0, i32 0, i1 false, i1 false)\n"
    "  store i32 %r, ptr addrspace(1) %p\n"
    "  ret void\n}\n"
    "declare i32 @llvm.amdgcn.permlane16.i32(i32, i32, i32, i32, i1, i1)\n";

static const char dyn_alloca_nvptx[] = /* dynamic alloca needs PTX 7.3: an error on sm_75 */
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %out, i32 %n) {\n"
    "  %buf = alloca i32, i32 %n\n"
    "  store volatile i32 1, ptr %buf\n"
    "  %v = load volatile i32, ptr %buf\n"
    "  store i32 %v, ptr addrspace(1) %out\n"
    "  ret void\n}\n";

static const char big_lds[] = /* 4 MB of LDS: far past any chip's 64 KB */
    AMT
    "@lds = internal addrspace(3) global [1048576 x i32] poison\n"
    "define amdgpu_kernel void @k(ptr addrspace(1) %out, i32 %i) {\n"
    "  %p = getelementptr [1048576 x i32], ptr addrspace(3) @lds, i32 0, i32 %i\n"
    "  store volatile i32 1, ptr addrspace(3) %p\n"
    "  %v = load volatile i32, ptr addrspace(3) %p\n"
    "  store i32 %v, ptr addrspace(1) %out\n"
    "  ret void\n}\n";

static const char amdgpu_ps_hsa[] = /* a graphics shader in an HSA (compute) module */
    AMT
    "define amdgpu_ps void @ps(float inreg %x, ptr addrspace(1) inreg %p) {\n"
    "  store float %x, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_constraint_nvptx[] =
    NVT
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call i32 asm sideeffect \"mov.u32 $0, 0;\", \"={no_such_reg}\"()\n"
    "  store i32 %r, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_constraint_amdgcn[] =
    AMT
    "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %r = call i32 asm sideeffect \"v_mov_b32 $0, 0\", \"={v99999}\"()\n"
    "  store i32 %r, ptr addrspace(1) %p\n  ret void\n}\n";

static const char asm_bad_text_amdgcn[] = /* the assembler refuses the instruction (bin only) */
    AMT
    "define amdgpu_kernel void @k() {\n"
    "  call void asm sideeffect \"no_such_instruction v0, v1\", \"\"()\n  ret void\n}\n";

/* Functions pinned by clang to a chip (as -S -emit-llvm writes them). */
static const char pinned_sm90[] =
    NVT
    "define ptx_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"sm_90\" \"target-features\"=\"+ptx80,+sm_90\" }\n";
static const char pinned_sm90_features_only[] =
    NVT
    "define ptx_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-features\"=\"+ptx80,+sm_90\" }\n";
static const char pinned_helper_sm90[] =
    NVT
    "define void @pinned_helper(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  call void @pinned_helper(ptr addrspace(1) %p)\n  ret void\n}\n"
    "attributes #0 = { noinline \"target-cpu\"=\"sm_90\" }\n";
static const char pinned_gfx90a[] =
    AMT
    "define amdgpu_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"gfx90a\" \"target-features\"=\"+16-bit-insts,+dpp,+gfx8-insts,+gfx9-insts,+gfx90a-insts,+mai-insts,+wavefrontsize64\" }\n";
static const char pinned_gfx1030[] =
    AMT
    "define amdgpu_kernel void @pinned_kernel(ptr addrspace(1) %p) #0 {\n"
    "  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n"
    "attributes #0 = { \"target-cpu\"=\"gfx1030\" \"target-features\"=\"+16-bit-insts,+dpp,+gfx10-insts,+gfx10-3-insts,+wavefrontsize32\" }\n";

static const bad_case cases[] = {
    /* ---- chips ---- */
    {"chip: sm_999", "-t nvptx:sm_999 -f asm " NV, .exit = E(CHIP), .msg = "sm_999"},
    {"chip: gfx9999", "-t amdgcn:gfx9999 -f asm " AM, .exit = E(CHIP)},
    /* clang's HIP output with its device libraries linked for gfx90a (their constants internal),
       retargeted to gfx942: CHIP naming both ISA versions, and the error before --retarget's warning */
    {"chip: a module's own __oclc_ISA_version for another chip (--retarget)", "--retarget -t amdgcn:gfx942 @IN",
     .text = AMT "@__oclc_ISA_version = internal addrspace(4) constant i32 9010\n"
                 "define amdgpu_kernel void @k(ptr addrspace(1) %p) #0 {\n"
                 "  %v = load i32, ptr addrspace(4) @__oclc_ISA_version\n"
                 "  store i32 %v, ptr addrspace(1) %p\n  ret void\n}\n"
                 "attributes #0 = { \"target-cpu\"=\"gfx90a\" }\n",
     .exit = E(CHIP), .msg = "as 9010, but amdgcn:gfx942 needs 9402"},
    {"chip: an amdgcn chip for nvptx", "-t nvptx:gfx90a -f asm " NV, .exit = E(CHIP)},
    {"chip: an nvptx chip for amdgcn", "-t amdgcn:sm_90 -f asm " AM, .exit = E(CHIP)},
    {"chip: a chip for spirv", "-t spirv:gfx90a " SP, .exit = E(CHIP)},
    {"chip: one bad chip of two", "-t nvptx:sm_80,sm_999 -f asm -o @D/{chip}{suffix} " NV, .exit = E(CHIP)},
    {"chip: an empty chip after a comma", "-t nvptx:sm_80, -f asm -o @D/{chip}{suffix} " NV, .exit = E(CHIP)},
    {"chip: pinned to sm_90, -t nvptx:sm_80 (no --retarget)", "-t nvptx:sm_80 -f asm @IN", .text = pinned_sm90,
     .exit = E(CHIP), .msg = "--retarget"},
    {"chip: pinned to sm_90 by its features only, -t nvptx:sm_80", "-t nvptx:sm_80 -f asm @IN",
     .text = pinned_sm90_features_only, .exit = E(CHIP)},
    {"chip: a helper pinned to sm_90, -t nvptx:sm_75", "-t nvptx:sm_75 -f asm @IN", .text = pinned_helper_sm90,
     .exit = E(CHIP), .msg = "pinned_helper"},
    {"chip: pinned to gfx90a, -t amdgcn:gfx1030", "-t amdgcn:gfx1030 -f asm @IN", .text = pinned_gfx90a,
     .exit = E(CHIP), .msg = "gfx1030"},
    {"chip: pinned to gfx1030, -t amdgcn:gfx90a", "-t amdgcn:gfx90a -f asm @IN", .text = pinned_gfx1030,
     .exit = E(CHIP), .msg = "pinned_kernel"},
    {"chip: pinned to gfx90a, -t amdgcn:gfx90a,gfx1030", "-t amdgcn:gfx90a,gfx1030 -f asm -o @D/{chip}{suffix} @IN",
     .text = pinned_gfx90a, .exit = E(CHIP)},
    {"chip: pinned to gfx90a, -t amdgcn:gfx803 bin", "-t amdgcn:gfx803 @IN", .text = pinned_gfx90a, .exit = E(CHIP)},

    /* ---- features ---- */
    {"features: nvptx +ptx60 below sm_90's minimum", "--features +ptx60 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +avx512f", "--features +avx512f -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx without a sign", "--features ptx80 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +ptx99", "--features +ptx99 -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx a lone +", "--features + -f asm " NV, .exit = E(FEATURES)},
    {"features: nvptx +sm_80 (the chip's, not a feature)", "--features +sm_80 -f asm " NV, .exit = E(FEATURES)},
#define AF(f) {"features: amdgcn " f, "-t amdgcn -f asm --features " f " " AM, .exit = E(FEATURES), .msg = f}
    AF("-fp64"), AF("-flat-address-space"), AF("-16-bit-insts"), AF("+wavefrontsize16"),
    AF("+scalar-dwordx3-loads"), AF("+requires-cov6"), AF("-gfx9-insts"), AF("-dpp"), AF("-vop3p"),
    AF("+add-sub-u64-insts"), AF("+flat-for-global"), AF("-sdwa"), AF("+gfx10-insts"), AF("+gfx11-insts"),
    AF("-ci-insts"), AF("-gfx8-insts"), AF("+real-true16"), AF("+unaligned-scratch-access"), AF("-mai-insts"),
    AF("+wavefrontsize32"), AF("-wavefrontsize64"), AF("+foo"),
    {"features: amdgcn +mai-insts on gfx1030", "-t amdgcn:gfx1030 -f asm --features +mai-insts " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn an allowed one then -fp64", "-t amdgcn -f asm --features +xnack,-fp64 " AM,
     .exit = E(FEATURES), .msg = "-fp64"},
    {"features: amdgcn +cumode,+wavefrontsize16", "-t amdgcn -f asm --features +cumode,+wavefrontsize16 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn +wavefrontsize16, --no-isolate", "--no-isolate -t amdgcn -f asm --features +wavefrontsize16 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn -fp64, --no-isolate", "--no-isolate -t amdgcn -f asm --features -fp64 " AM, .exit = E(FEATURES)},
    {"features: amdgcn -flat-address-space, --no-isolate",
     "--no-isolate -t amdgcn -f asm --features -flat-address-space " AM, .exit = E(FEATURES)},
    {"features: amdgcn +requires-cov6, --no-isolate", "--no-isolate -t amdgcn -f asm --features +requires-cov6 " AM,
     .exit = E(FEATURES)},
    {"features: amdgcn -fp64, bin", "-t amdgcn --features -fp64 " AM, .exit = E(FEATURES)},

    /* ---- formats ---- */
    {"format: fatbin for spirv", "-t spirv -f fatbin " SP, .exit = E(FORMAT)},
    {"option: a pack holds a chip once (amdgcn)", "-t amdgcn:gfx90a,gfx1030,gfx90a -f fatbin " AM, .exit = E(OPTION),
     .msg = "gfx90a is in it twice"},
    {"option: a pack holds a chip once (nvptx)", "-t nvptx:sm_80,sm_80 -f fatbin " NV, .exit = E(OPTION),
     .needs_ptxas = 1},

    /* ---- device libraries ---- */
    {"nolib: ROCm device libraries on no search path",
     "--no-default-search --tool-dir " LLVM_BINDIR " -t amdgcn " AM, .exit = E(NOLIB), .msg = "ocml.bc"},
    {"nolib: libdevice on no search path", "--no-default-search --lib-dir /nonexistent -t nvptx -f asm " NV,
     .exit = E(NOLIB), .msg = "/nonexistent/libdevice.10.bc"},
    {"nolib: ockl.bc on no search path (only ocml.bc's directory)",
     "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/only-ocml -t amdgcn " AM, .exit = E(NOLIB),
     .msg = "ockl.bc", .needs_rocm = 1},

    /* ---- AMD: target ids, ABI versions, generic targets ---- */
    {"chip: a target id modifier the chip lacks (gfx1100:xnack+)", "-t amdgcn:gfx1100:xnack+ " AM, .exit = E(CHIP),
     .msg = "the chip has no 'xnack+'"},
    {"chip: a target id modifier without its sign", "-t amdgcn:gfx90a:xnack " AM, .exit = E(CHIP),
     .msg = "FEATURE+ or FEATURE-"},
    {"chip: a target id naming a feature twice", "-t amdgcn:gfx942:xnack+:xnack- " AM, .exit = E(CHIP),
     .msg = "twice"},
    {"features: against the target id", "-t amdgcn:gfx90a:xnack+ --features -xnack " AM, .exit = E(FEATURES),
     .msg = "contradicts"},
    {"option: --abi 500 on a generic target (LLVM would abort)", "-t amdgcn:gfx11-generic --abi 500 " AM,
     .exit = E(OPTION), .msg = "needs ABI version 600"},
    {"option: --abi 300", "-t amdgcn:gfx942 --abi 300 " AM, .exit = E(OPTION), .msg = "400 500 600"},
    {"option: -l of a directory", "-l /tmp -f asm " NV, .exit = E(IO), .msg = "link file /tmp"},
    {"option: -l of /dev/zero (no regular file, never read)", "-l /dev/zero -f asm " NV, .exit = E(IO),
     .msg = "/dev/zero"},
    {"option: -l of LLVM IR text that does not parse", "-l examples/saxpy.mlir -f asm " NV, .exit = E(BITCODE),
     .msg = "saxpy.mlir"},
    {"option: -l of the amdgcn module into nvptx", "-l " AM " -f asm " NV, .exit = E(TARGET),
     .msg = "is for amdgcn"},
    {"option: --opts with an unclosed quote", "--opts '-O3 " NV, .exit = E(OPTION), .msg = "not closed"},
    {"option: --opts nvJitLink has no counterpart of, in-process", "--tool-mode in-process --opts --no-such " NV,
     .exit = E(OPTION), .msg = "--no-such"},
    {"option: --abi on a target without ABI versions", "-t spirv --abi 500 @IN", .text = "define spir_kernel void @k() { ret void }\n",
     .exit = E(OPTION), .msg = "has ABI versions"},
    {"option: a module's code object v5 on a generic target (LLVM would abort)", "-t amdgcn:gfx12-generic @IN",
     .text = "target triple = \"amdgcn-amd-amdhsa\"\n"
             "define amdgpu_kernel void @k() { ret void }\n"
             "!llvm.module.flags = !{!0}\n!0 = !{i32 1, !\"amdhsa_code_object_version\", i32 500}\n",
     .exit = E(OPTION), .msg = "needs ABI version 600"},
    {"link: a module declaring a control constant with another type", "-t amdgcn:gfx942 @IN",
     .text = "target triple = \"amdgcn-amd-amdhsa\"\n"
             "@__oclc_ABI_version = external addrspace(1) global i32\n"
             "declare float @__ocml_sin_f32(float)\n"
             "define amdgpu_kernel void @k(ptr addrspace(1) %p) {\n"
             "  %v = load i32, ptr addrspace(1) @__oclc_ABI_version\n"
             "  %x = sitofp i32 %v to float\n  %y = call float @__ocml_sin_f32(float %x)\n"
             "  store float %y, ptr addrspace(1) %p\n  ret void\n}\n",
     .exit = E(LINK), .msg = "__oclc_ABI_version", .needs_rocm = 1},

    {"link: ocml.bc is garbage", "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/bad-ocml -t amdgcn " AM,
     .exit = E(LINK), .alt = E(BITCODE)},
    {"link: ocml.bc is empty", "--no-default-search --tool-dir " LLVM_BINDIR " --lib-dir @S/empty-ocml -t amdgcn " AM,
     .exit = E(LINK), .alt = E(NOLIB)},
    {"link: libdevice.10.bc is garbage", "--no-default-search --lib-dir @S/bad-libdevice -t nvptx -f asm " NV,
     .exit = E(LINK), .alt = E(BITCODE)},

    /* ---- LLVM diagnostics of error severity: BACKEND ---- */
    {"backend: dynamic alloca on sm_75", "-t nvptx:sm_75 -f asm @IN", .text = dyn_alloca_nvptx, .exit = E(BACKEND)},
    {"backend: 4 MB of LDS on amdgcn", "-t amdgcn -f asm @IN", .text = big_lds, .exit = E(BACKEND)},
    {"backend: 4 MB of LDS on amdgcn, bin", "-t amdgcn @IN", .text = big_lds, .exit = E(BACKEND)},
    {"backend: amdgpu_ps in an HSA module", "-t amdgcn -f asm @IN", .text = amdgpu_ps_hsa, .exit = E(BACKEND)},
    {"backend: inline asm constraint nvptx cannot allocate", "-t nvptx -f asm @IN", .text = asm_constraint_nvptx,
     .exit = E(BACKEND)},
    {"backend: inline asm constraint amdgcn cannot allocate", "-t amdgcn -f asm @IN", .text = asm_constraint_amdgcn,
     .exit = E(BACKEND)},
    {"backend: inline asm the assembler refuses", "-t amdgcn @IN", .text = asm_bad_text_amdgcn, .exit = E(BACKEND)},
    {"backend: permlane16 on gfx90a", "-t amdgcn:gfx90a -f asm @IN", .text = permlane_gfx90a, .exit = E(BACKEND)},
    /* LLVM fatal errors: default (the CLI may isolate), --isolate, --no-isolate */
#define ABORT3(what, args, input)                                                                 \
  {"abort: " what, args, .text = input, .exit = E(BACKEND)},                                      \
  {"abort: " what ", --isolate", "--isolate " args, .text = input, .exit = E(BACKEND)},           \
  {"abort: " what ", --no-isolate", "--no-isolate " args, .text = input, .exit = E(BACKEND)}
    /* an intrinsic the backend cannot select, with no device-library function (src/libm_names.c):
       refused before LLVM, isolated or not (NOLIB where libdevice is missing) */
    {"target: llvm.sin.f16 in an nvptx kernel", "-t nvptx -f asm @IN", .text = sin_half_nvptx, .exit = E(TARGET),
     .alt = E(NOLIB), .msg = "llvm.sin.f16"},
    {"target: llvm.sin.f16 in an nvptx kernel, --isolate", "--isolate -t nvptx -f asm @IN", .text = sin_half_nvptx,
     .exit = E(TARGET), .alt = E(NOLIB)},
    {"target: llvm.sin.f16 in an nvptx kernel, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .text = sin_half_nvptx, .exit = E(TARGET), .alt = E(NOLIB)},
    {"target: llvm.sin.f16 in an nvptx kernel, bin", "-t nvptx @IN", .text = sin_half_nvptx, .exit = E(TARGET),
     .msg = "cannot select", .needs_ptxas = 1},
    /* a name PTX cannot hold: refused before the backend (VERIFY), or the backend's error */
    {"abort: a public function with a dash in its name on nvptx", "-t nvptx -f asm @IN", .text = dash_symbol,
     .exit = E(VERIFY), .alt = E(BACKEND), .msg = "my-helper"},
    {"abort: a public function with a dash in its name on nvptx, --no-isolate", "--no-isolate -t nvptx -f asm @IN",
     .text = dash_symbol, .exit = E(VERIFY), .alt = E(BACKEND)},
    {"abort: a public global with a dash in its name on nvptx", "-t nvptx -f asm @IN", .text = dash_global,
     .exit = E(VERIFY), .alt = E(BACKEND), .msg = "my-counter"},
    {"abort: a public global with a dash in its name on nvptx, bin", "-t nvptx @IN", .text = dash_global,
     .exit = E(VERIFY), .alt = E(BACKEND), .needs_ptxas = 1},
    ABORT3("wgmma on sm_80", "-t nvptx:sm_80 -f asm @IN", wgmma_sm80),
    ABORT3("mfma on gfx803", "-t amdgcn:gfx803 -f asm @IN", mfma_gfx803),
};

/* A bin blob with no entry point is a warning, not an error. */
static void test_no_entry_point(void) {
  const char *tmp = fresh_dir("noentry-tmp"), *in = tmp_path("noentry.ll"), *out = tmp_path("noentry.hsaco");
  static const char text[] = AMT "define void @helper(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n"
                                 "  ret void\n}\n";
  spill(in, text, sizeof text - 1);
  const char *args[] = {"-t", "amdgcn", in, "-o", out, NULL};
  outcome o = cli(args, tmp, 20);
#define NOENTRY "extra: a bin blob with no entry point is a warning, not an error"
  check(o.rc == 0, NOENTRY, "exit %d: %s", o.rc, o.err);
  check(exists(out), NOENTRY ": the output is written", "no %s", out);
  check(contains(o.err, "gpublob: warning:"), NOENTRY ": a warning", "%s", o.err);
  check(dir_empty(tmp), NOENTRY ": TMPDIR empty", NULL);
#undef NOENTRY
  free(o.err);
}

int main(void) {
  if (bad_start()) return 2;
  run_table(cases, sizeof cases / sizeof *cases);
  test_no_entry_point();
  return bad_end();
}
