/* src/spec_keys.h: the keys of a target section of the spec (targets/targets.spec), in
** one list.  specgen (gen/) reads it to parse, default, check and write each key;
** src/internal.h declares a field of target_desc per key from it.  A new key is one
** X(...) line here, anywhere in the list, plus the code that uses it: specgen
** parses, defaults and checks it as its PRESENCE, TYPE and FORM say, the generated table
** (gpublob_targets.def, designated initialisers) sets its field for every target,
** and the spec's digest, which the cache's keys hold, covers its value.  The order
** is the table's and the digest's; nothing else depends on it.
**
**   X(KEY, PRESENCE, TYPE, FORM, DOC)
**
** KEY       the key in the spec, and target_desc's field
** PRESENCE  REQUIRED    every target gives it a value that is not empty
**           OPTIONAL    a target without it has none ("" in the table)
**           DEFAULT(V)  a target without it has V, a string
** TYPE      STRING      a string
**           LIST        blank-separated words, a string
**           TEMPLATE(STRING or LIST, PLACEHOLDERS)
**                       a STRING or LIST whose {NAME}s are expanded (src/template.c):
**                       PLACEHOLDERS, a string of blank-separated names, are those
**                       the core passes it, and specgen refuses any other
**           ENUM((W, ...))
**                       one of the words W, kept as a string
**           CENUM(T, P, (W, ...))
**                       one of the words W, as a C enum: the field is enum T, the
**                       word W its constant P##W (enum T is declared from this line,
**                       a constant per word in its order), and KEY_name holds the word
**           INTEGER(MIN, MAX, UNIT)
**                       plain digits from MIN to MAX (no sign, no leading zero), an
**                       int; UNIT is what it counts, for specgen's message
**           CENUM and INTEGER keys are REQUIRED or have a DEFAULT.
** FORM      what the value must look like beyond its TYPE, a word of enum
**           gpublob_spec_form below (GPUBLOB_SPEC_FORM_ and the word): specgen
**           checks each key's value by it (gen/spec_check.c); NONE: nothing more
** DOC       what the value means
**
** The words of ENUM and CENUM are C identifiers, 1 to 8 of them, none a macro's name
** where this file is included (they pass through macros before P##W).  A key's line says
** all specgen and the core know of it; the code that uses it, a check in
** gen/spec_check.c where its value has a form no FORM yet names, and its row in docs/targets.md's key
** table (tests/test_docs.c checks the table against this list) are the rest.
**
** This file is C: no system header, nothing but the list, the forms of its values,
** the enums of its CENUM keys and the macros that declare target_desc's fields. */
#ifndef GPUBLOB_SPEC_KEYS_H
#define GPUBLOB_SPEC_KEYS_H

/* The forms of the keys' values (FORM); words are blank-separated, GLOB a chip glob. */
enum gpublob_spec_form {
  GPUBLOB_SPEC_FORM_NONE,                /* nothing beyond its TYPE */
  GPUBLOB_SPEC_FORM_CHIP_FEATURE,        /* GLOB:+feature or GLOB:-feature words */
  GPUBLOB_SPEC_FORM_CHIP_MODIFIER,       /* GLOB:FEATURE words, a feature name without a sign */
  GPUBLOB_SPEC_FORM_CHIP_VERSION,        /* CHIP:NUMBER words, each chip of chips once */
  GPUBLOB_SPEC_FORM_CHIP_FEATURE_MIN,    /* CHIP:FEATURE words, CHIP in chips, FEATURE version_feature and a number */
  GPUBLOB_SPEC_FORM_CHIP_ABI,            /* GLOB:ABI words, ABI one of abi_versions */
  GPUBLOB_SPEC_FORM_ABI_TOOL,            /* ABI:VERSION words, ABI one of abi_versions */
  GPUBLOB_SPEC_FORM_CHIP_CHIP,           /* CHIP:CHIP words, the second in chips where the first is */
  GPUBLOB_SPEC_FORM_GLOB_N,              /* GLOB:N words, plain numbers */
  GPUBLOB_SPEC_FORM_GLOB_N_M,            /* GLOB:N or GLOB:N,M words */
  GPUBLOB_SPEC_FORM_GLOB_STEPS,          /* GLOB:S=W,...,W words, ending in a W */
  GPUBLOB_SPEC_FORM_GLOB_FEATURE,        /* GLOB:FEATURE words, a feature name without a sign */
  GPUBLOB_SPEC_FORM_LANG_MODE,           /* LANG:MODE words, MODE on, fast or off */
  GPUBLOB_SPEC_FORM_LANG_OPTION,         /* LANG:-OPTION words, an LLVM option */
  GPUBLOB_SPEC_FORM_NAME_GLOB,           /* NAME:GLOB words, NAME no built-in condition */
  GPUBLOB_SPEC_FORM_MODULE_FLAGS,        /* NAME=BEHAVIOUR:VALUE words */
  GPUBLOB_SPEC_FORM_HEX,                 /* 1 to 32 bytes of hex digits */
  GPUBLOB_SPEC_FORM_BIN_CHIP,            /* object, or flags:SHIFT:MASK */
  GPUBLOB_SPEC_FORM_NAMES,               /* words of at most 63 bytes */
  GPUBLOB_SPEC_FORM_GLOBS,               /* words of at most 127 bytes */
  GPUBLOB_SPEC_FORM_NUMBERS,             /* plain numbers */
  GPUBLOB_SPEC_FORM_CONSTANTS,           /* NAME:TYPE=VALUE words */
  GPUBLOB_SPEC_FORM_MLIR_FLAGS,          /* FLAG:EFFECT words */
  GPUBLOB_SPEC_FORM_DIALECTS,            /* MLIR dialects with a C API handle */
  GPUBLOB_SPEC_FORM_CALLING_CONVENTIONS, /* calling conventions' names or numbers */
  GPUBLOB_SPEC_FORM_FUNCTION_NAME,       /* one function name made from {name} */
  GPUBLOB_SPEC_FORM_INTRINSIC_GLOBS,     /* globs of intrinsic names, perhaps with !afn */
  GPUBLOB_SPEC_FORM_FLOAT_TYPES,         /* LLVM's floating-point types */
  GPUBLOB_SPEC_FORM_LLVM_TARGET          /* an LLVM backend's name */
};

/* The placeholders every template key expands: the job's chip and ABI. */
#define GPUBLOB_SPEC_CHIP_PLACEHOLDERS "chip chipid targetid chipversion abi"

#define GPUBLOB_SPEC_KEYS(X)                                                                        \
  X(triple, REQUIRED, STRING, NONE, "target triple")                                                     \
  X(chip, REQUIRED, STRING, NONE, "default chip")                                                        \
  X(chip_prefix, OPTIONAL, STRING, NONE, "prefix stripped from the chip for {chipid}")                   \
  X(chips, REQUIRED, LIST, NAMES, "valid chip names")                                                     \
  X(chip_features, OPTIONAL, LIST, CHIP_FEATURE, "GLOB:+feature pairs a chip implies")                           \
  X(chip_modifiers, OPTIONAL, LIST, CHIP_MODIFIER, "GLOB:FEATURE: a matching chip may be named CHIP:FEATURE+ or -")   \
  X(chip_version, OPTIONAL, LIST, CHIP_VERSION, "CHIP:NUMBER: the chip's version, {chipversion} in templates")     \
  X(features, OPTIONAL, LIST, NONE, "default LLVM target features")                                      \
  X(feature_names, OPTIONAL, LIST, GLOBS, "glob patterns of accepted feature names")                      \
  X(version_feature, OPTIONAL, STRING, NONE, "prefix of a versioned feature, such as ptx")               \
  X(feature_min, OPTIONAL, LIST, CHIP_FEATURE_MIN, "CHIP:FEATURE minimum versioned feature per chip")                \
  X(emit, REQUIRED, CENUM(emit_kind, EMIT_, (asm, obj)), NONE, "what the backend emits for the blob step") \
  X(tool_kind, REQUIRED, CENUM(tool_kind, TOOL_, (exec, none, asked)), NONE, "kind of blob tool (asked: "   \
    "the backend's object is the blob, and the tool runs only with --tool-mode program)")          \
  X(tool_suffix, OPTIONAL, STRING, NONE, "file suffix of the tool's blob where it differs from suffix_bin " \
    "(tool_kind asked: the native binary beside the object)")                                       \
  X(tool_magic, OPTIONAL, STRING, HEX, "hex bytes the tool's blob starts with, where not bin_magic")     \
  X(tool_input, DEFAULT("file"), CENUM(tool_input, INPUT_, (file, stdin, pipe)), NONE,                     \
    "how the tool gets its input")                                                                  \
  X(tool, OPTIONAL, LIST, NONE, "candidate names of the blob tool")                                      \
  X(tool_argv, OPTIONAL, TEMPLATE(LIST, "tool " GPUBLOB_SPEC_CHIP_PLACEHOLDERS " in out outstem tooloptions opt"), NONE, \
    "argv template of the blob tool")                                                               \
  X(tool_search, OPTIONAL, LIST, NONE, "directories searched for the blob tool")                         \
  X(tool_version, OPTIONAL, TEMPLATE(LIST, "tool"), NONE,                                                 \
    "argv template that asks the blob tool its version ({tool} --version)")                         \
  X(tool_report, DEFAULT("none"), CENUM(tool_report, REPORT_, (none, ptxas)), NONE,                        \
    "the reader of the blob tool's per-kernel report of a compile (ptxas: ptxas -v's lines, "         \
    "nvJitLink's info log): spills and barriers the blob does not record")                          \
  X(tool_report_argv, OPTIONAL, LIST, NONE, "words that each make the blob program print its report: "  \
    "the first is added where the caller's options have none of them")                          \
  X(provider_report_argv, OPTIONAL, LIST, NONE, "words that each make the provider keep its report (its " \
    "info log): the first is added where the options have none of them")                         \
  X(provider, DEFAULT("none"), CENUM(provider_kind, PROVIDER_, (none, nvjitlink, lld)), NONE,              \
    "in-process provider of the blob step")                                                         \
  X(provider_from, DEFAULT("library"), CENUM(provider_from, PROVIDER_FROM_, (library, linked)), NONE,      \
    "where the provider is: a library loaded at run time (provider_lib), or linked into gpublob "   \
    "where its build has it")                                                                       \
  X(provider_bytes, DEFAULT("own"), CENUM(provider_bytes, PROVIDER_BYTES_, (own, program)), NONE,         \
    "program: the provider gives the blob program's bytes, so auto takes it wherever it is "        \
    "available; own: bytes of its own (auto keeps the program)")                                    \
  X(provider_lib, OPTIONAL, LIST, NONE, "candidate file names of the provider's library")                \
  X(provider_search, OPTIONAL, LIST, NONE, "directories searched for the provider's library")            \
  X(provider_argv, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt in out"), NONE,          \
    "the provider's options (template)")                                                            \
  X(provider_options, OPTIONAL, LIST, NONE, "TOOL:PROVIDER: a blob tool option the caller may give and "   \
    "the provider's for it (a TOOL ending in * matches the words it starts; PROVIDER's * is the rest); " \
    "!GLOB: options with no counterpart in-process, checked first")                                  \
  X(pack_tool, OPTIONAL, LIST, NONE, "candidate names of the tool that packs chips into one blob")       \
  X(pack_argv, OPTIONAL, TEMPLATE(LIST, "tool " GPUBLOB_SPEC_CHIP_PLACEHOLDERS " out opt images targets"), NONE, \
    "argv template of the pack tool; {images} stands for the images")                               \
  X(pack_image, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " in opt"), NONE,                 \
    "the words for each chip's blob (template, {in} its file)")                                     \
  X(pack_asm_image, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " in opt"), NONE,             \
    "the words for the newest chip's assembly (template)")                                          \
  X(pack_target, OPTIONAL, TEMPLATE(STRING, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), NONE,                 \
    "the id of each chip's entry in a pack (template); {targets} joins them")                       \
  X(pack_provider, DEFAULT("none"), CENUM(pack_provider_kind, PACK_PROVIDER_, (none, offload_bundle)), NONE, \
    "in-process pack step that stands in for the pack tool")                                        \
  X(pack_provider_argv, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), NONE,            \
    "the pack provider's options (template)")                                                       \
  X(suffix_pack, OPTIONAL, STRING, NONE, "file suffix of a pack")                                        \
  X(metadata, DEFAULT("none"), CENUM(metadata_kind, METADATA_, (none, amdgpu_note, nv_info)), NONE,         \
    "reader of the kernels' metadata in a bin blob (gpublob_kernel_get)")                           \
  X(pack_metadata, DEFAULT("none"), CENUM(pack_metadata_kind, PACK_METADATA_, (none, offload_bundle, fatbin)), NONE, \
    "reader of a pack's members, each read by 'metadata'")                                          \
  X(offload_image, DEFAULT("none"), CENUM(offload_image_kind, OFFLOAD_IMAGE_, (none, object, bitcode, cubin,      \
    fatbinary, ptx, spirv)), NONE, "-f offload (src/offload.c): the image kind of a bin blob's entry in LLVM's "   \
    "OffloadBinary (LLVM's ImageKind: cubin, object for an hsaco, spirv); none: the target has no entry") \
  X(offload_asm_image, DEFAULT("none"), CENUM(offload_asm_image_kind, OFFLOAD_ASM_IMAGE_, (none, ptx)), NONE, \
    "-f offload with --offload-asm: the image kind of a chip's assembly as an entry of its own (nvptx: ptx); " \
    "none: no assembly entry")                                                                      \
  X(offload_kind, DEFAULT("none"), CENUM(offload_producer, OFFLOAD_KIND_, (none, openmp, cuda, hip, sycl)), NONE, \
    "-f offload: the offload kind (LLVM's OffloadKind, the producer) of the target's entries")        \
  X(occupancy, DEFAULT("none"), CENUM(occupancy_model, OCCUPANCY_, (none, cuda, amdgpu)), NONE,           \
    "the occupancy formula (src/occupancy.c, docs/kernels.md): cuda, the CUDA occupancy calculator's "  \
    "(cuda_occupancy.h); amdgpu, LLVM's AMDGPU backend's (llc's '; Occupancy:'); none: no occupancy")  \
  X(occupancy_regs, OPTIONAL, LIST, GLOB_N, "GLOB:N 32-bit registers of an SM (cuda) or a SIMD (amdgpu), "      \
    "every lane's: a chip no word matches has no limits")                                           \
  X(occupancy_block_regs, OPTIONAL, LIST, GLOB_N, "GLOB:N registers one block may hold (cuda's regsPerBlock), " \
    "where not occupancy_regs")                                                                     \
  X(occupancy_reg_unit, OPTIONAL, LIST, GLOB_N, "GLOB:N registers a warp (wave) is given at once, its lanes' " \
    "together (cuda: 256; amdgpu: LLVM's VGPR granule times the wave size)")                         \
  X(occupancy_sgprs, OPTIONAL, LIST, GLOB_STEPS, "GLOB:S=W,...,W (amdgpu): at most S scalar registers leave W "   \
    "waves a SIMD, else the last W; a chip no word matches has no SGPR limit")                       \
  X(occupancy_warps, OPTIONAL, LIST, GLOB_N, "GLOB:N most warps resident on an SM (cuda) or waves on a SIMD (amdgpu)") \
  X(occupancy_blocks, OPTIONAL, LIST, GLOB_N, "GLOB:N most blocks resident on an SM (cuda); amdgpu: work-groups " \
    "of more than one wave on a CU (its barriers)")                                                 \
  X(occupancy_shared, OPTIONAL, LIST, GLOB_N, "GLOB:N bytes of shared memory an SM has under the default "  \
    "carveout (cuda) or of LDS a CU (amdgpu: a WGP where occupancy_split applies)")                  \
  X(occupancy_shared_unit, OPTIONAL, LIST, GLOB_N, "GLOB:N bytes shared memory is allocated in (none: 1)")  \
  X(occupancy_shared_block, OPTIONAL, LIST, GLOB_N, "GLOB:N most static shared bytes a block (none: no limit " \
    "but the SM's)")                                                                                \
  X(occupancy_reserved, OPTIONAL, LIST, GLOB_N, "GLOB:N shared bytes the driver reserves for each block (none: 0)") \
  X(occupancy_partitions, OPTIONAL, LIST, GLOB_N_M, "GLOB:N or GLOB:N,M: the register sub-partitions of an SM " \
    "(cuda; M: a block must also fit with M, cuda_occupancy.h's GP100 rule) or the SIMDs of a CU (amdgpu)") \
  X(occupancy_warp_size, OPTIONAL, LIST, GLOB_N, "GLOB:N threads a warp (wave) where the kernel's metadata has none") \
  X(occupancy_max_block, OPTIONAL, LIST, GLOB_N, "GLOB:N most threads a block")                            \
  X(occupancy_split, OPTIONAL, LIST, GLOB_FEATURE, "GLOB:FEATURE (amdgpu): a chip named CHIP:FEATURE+ has half "  \
    "the SIMDs, LDS and work-groups of occupancy_partitions, occupancy_shared and occupancy_blocks "  \
    "(CU mode: one CU of a WGP)")                                                                   \
  X(attribute, REQUIRED, STRING, NONE, "MLIR attribute name of the blob")                                \
  X(suffix_asm, REQUIRED, STRING, NONE, "file suffix of assembly")                                       \
  X(suffix_bin, REQUIRED, STRING, NONE, "file suffix of the blob")                                       \
  X(disasm_chips, OPTIONAL, LIST, GLOBS, "globs of the chips whose bin blobs LLVM's disassembler reads "  \
    "(inspect --disasm, gpublob_disasm); none: LLVM disassembles none of the target's")             \
  X(asm_chip, OPTIONAL, STRING, NONE, "the directive a line of the assembly text names its chip after "    \
    "(PTX: .target), by which inspect knows the text")                                              \
  X(bin_magic, OPTIONAL, STRING, HEX, "hex bytes every blob of the bin format starts with")             \
  X(pack_magic, OPTIONAL, STRING, HEX, "hex bytes every pack starts with")                              \
  X(bin_machine, DEFAULT("0"), INTEGER(0, 65535, "ELF machine"), NONE, "the ELF e_machine of every bin "    \
    "blob (0: none checked)")                                                                       \
  X(bin_chip, OPTIONAL, STRING, BIN_CHIP, "how a bin blob names its chip: object (its ELF e_flags are the "    \
    "backend object's, which a linker keeps) or flags:SHIFT:MASK (e_flags >> SHIFT & MASK is the "  \
    "number {chipid} starts with)")                                                                 \
  X(symbol_chars, OPTIONAL, STRING, NONE, "characters a public symbol may hold (ranges a-z allowed)")    \
  X(libs, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), NONE,                          \
    "device bitcode libraries (templates)")                                                         \
  X(lib_search, OPTIONAL, LIST, NONE, "directories searched for device libraries")                       \
  X(lang_libs, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), NONE,                     \
    "LANG:LIBRARY: a device library (template) a module of language LANG "                          \
    "needs before libs (opencl: a module with !opencl.ocl.version)")                                \
  X(module_flags, OPTIONAL, LIST, MODULE_FLAGS, "NAME=BEHAVIOUR:VALUE module flags")                             \
  X(mlir_module_flags, OPTIONAL, LIST, MODULE_FLAGS, "NAME=BEHAVIOUR:VALUE module flags of an MLIR input's job, in "  \
    "place of module_flags: those its peer's serialiser writes (none: none)")                         \
  X(mlir_lib_link, DEFAULT("needed"), CENUM(mlir_lib_link, MLIR_LIB_LINK_, (needed, always)), NONE,          \
    "needed: an MLIR input's module links a device library only where it needs one of its names; "    \
    "always: it links every library of libs it finds, as upstream's NVVM serialiser links libdevice "  \
    "(what nothing uses adds no code; the library's named metadata comes in)")                         \
  X(abi, OPTIONAL, STRING, NONE, "default ABI version, {abi} in templates (AMD: the code object version)") \
  X(abi_versions, OPTIONAL, LIST, NUMBERS, "the ABI versions a caller may choose")                             \
  X(abi_tool_min, OPTIONAL, LIST, ABI_TOOL, "ABI:VERSION: an ABI version, and later ones, need this major tool version") \
  X(abi_min, OPTIONAL, LIST, CHIP_ABI, "GLOB:NUMBER: the lowest ABI version (and the default) for matching chips") \
  X(constants, OPTIONAL, TEMPLATE(LIST, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), CONSTANTS,                     \
    "NAME:TYPE=VALUE constants written into the module before linking")                             \
  X(constant_space, DEFAULT("0"), INTEGER(0, 65535, "address space"), NONE, "address space of the constants") \
  X(intrinsics, OPTIONAL, LIST, NONE, "intrinsic namespaces the backend selects, e.g. nvvm")             \
  X(libm_float, OPTIONAL, TEMPLATE(STRING, "name " GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), FUNCTION_NAME,          \
    "device-library function for a float C math function (template: "                               \
    "{name} is the C function's double name, sin for sinf)")                                       \
  X(libm_double, OPTIONAL, TEMPLATE(STRING, "name " GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt"), FUNCTION_NAME,         \
    "device-library function for a double C math function (template)")                              \
  X(libm_intrinsics, OPTIONAL, LIST, INTRINSIC_GLOBS, "glob patterns of llvm.* math intrinsics the backend cannot "  \
    "select (PATTERN!afn: unless the call has afn), called as their C function's libm_ name")      \
  X(extern_spaces, OPTIONAL, LIST, NONE, "address spaces whose external global declarations the target's "  \
    "ABI leaves undefined (dynamic shared memory: extern __shared__): they need no device library") \
  X(undefined_ok, OPTIONAL, LIST, NONE, "glob patterns of functions a bin blob may leave undefined (the "  \
    "tool or driver provides them; * for any)")                                                     \
  X(unsupported_types, OPTIONAL, LIST, FLOAT_TYPES, "LLVM types the backend cannot lower (half bfloat float double "  \
    "fp128 x86_fp80 ppc_fp128): a module that still holds one before the backend is TARGET")      \
  X(entry_cc, OPTIONAL, LIST, CALLING_CONVENTIONS, "calling conventions of entry points")                               \
  X(fp_contract, DEFAULT("on"), CENUM(fp_contract, FP_CONTRACT_, (on, fast, off)), NONE, "floating-point " \
    "contraction by default (options' fp_contract): on, as the IR says; fast, every fadd, fsub and "  \
    "fmul may fuse; off, none may")                                                                 \
  X(lang, OPTIONAL, STRING, NONE, "the source language of the target's modules, where the module names no "  \
    "other (opencl: !opencl.ocl.version): what clang_fp_contract and clang_mllvm match (cuda, hip)")    \
  X(clang_fp_contract, OPTIONAL, LIST, LANG_MODE, "LANG:MODE (on, fast, off): --as clang's floating-point "          \
    "contraction for a module of language LANG, as clang's driver sets it (cuda:fast); another "        \
    "language has fp_contract")                                                                         \
  X(clang_mllvm, OPTIONAL, LIST, LANG_OPTION, "LANG:WORD: an LLVM option (-NAME or -NAME=VALUE) clang's driver "      \
    "passes by -mllvm for a module of language LANG, in effect for its middle end and code generator " \
    "under --as clang (cuda:-enable-memcpyopt-without-libcalls)")                                       \
  X(isa_conditions, OPTIONAL, LIST, NAME_GLOB, "NAME:GLOB: condition NAME of the blob tool's templates "           \
    "({if:NAME:..}) holds when a line of the backend's assembly, its leading blanks left out, "        \
    "matches GLOB (nvptx: debug:.target*debug, the PTX of a full debug compile unit)")                 \
  X(debug_optimised, DEFAULT("full"), CENUM(debug_level, DEBUG_LEVEL_, (none, lines, full)), NONE,            \
    "the most debug information a module keeps by default (options' debug auto) when the level is not "  \
    "-O0, as clang's driver keeps it: nvptx lines (ptxas -g does not optimise)")                         \
  X(debug_lines, DEFAULT("tables"), CENUM(debug_lines, DEBUG_LINES_, (tables, directives)), NONE,           \
    "how a module keeps line tables alone: tables, a line-tables-only compile unit (LLVM's DWARF line "  \
    "table); directives, a debug-directives-only one (nvptx: .loc lines, from which ptxas makes the table)") \
  X(isa_file_stamp, OPTIONAL, STRING, NONE, "DIRECTIVE:SUFFIX: each line of the backend's assembly that is "    \
    "DIRECTIVE, a number and a quoted file name alone gets SUFFIX before the blob tool reads it, unless "  \
    "--as clang (nvptx .file:,1,0: a fixed time stamp and size, which ptxas otherwise reads from the source file)") \
  X(internalize, DEFAULT("no"), CENUM(internalize, INTERNALIZE_, (no, yes)), NONE, "yes: a module with entry " \
    "points is a whole program in every format (the functions that are not entries become internal " \
    "before optimisation, as clang's HIP does); no: every function keeps its linkage (clang's CUDA)") \
  X(mlir_target, OPTIONAL, STRING, NONE, "MLIR target attribute that selects the target, e.g. nvvm.target") \
  X(mlir_chip, OPTIONAL, STRING, NONE, "chip the MLIR attribute means when it names none")               \
  X(mlir_lower, OPTIONAL, TEMPLATE(STRING, GPUBLOB_SPEC_CHIP_PLACEHOLDERS " opt lowerchip"), NONE,        \
    "MLIR passes (template) that lower a gpu.module body")                                          \
  X(mlir_dialects, OPTIONAL, LIST, DIALECTS, "dialects a lowered gpu.module body may hold")                  \
  X(mlir_lower_chip, OPTIONAL, LIST, CHIP_CHIP, "CHIP:CHIP: the chip MLIR's lowering is told, {lowerchip}, where not the chip") \
  X(mlir_abi, OPTIONAL, STRING, NONE, "ABI version the MLIR attribute means when it names none (its abi)") \
  X(mlir_flags, OPTIONAL, LIST, MLIR_FLAGS, "FLAG:EFFECT: the target attribute's flags, as a feature, an option, "   \
    "tool-options (its strings are the blob tool's) or tool-log (the tool's log in the object)")        \
  X(mlir_kernel_attrs, OPTIONAL, LIST, NONE, "NAME=VALUE: what each kernel (an llvm.func with gpu.kernel) gets "  \
    "once lowered, where it has no NAME (VALUE MLIR's text, e.g. 16:i32)")                              \
  X(mlir_lib_drop, OPTIONAL, LIST, NONE, "named metadata taken out of each device library before an MLIR "    \
    "input's module links it, as upstream's serialiser does (rocdl: opencl.ocl.version llvm.ident)")    \
  X(mlir_serializer, DEFAULT("llvm"), CENUM(mlir_serializer, MLIR_SERIALIZER_, (llvm, mlir)), NONE,          \
    "what makes a gpu.module's blob for this target: llvm, gpublob's pipeline (lowering, translation, " \
    "LLVM's backend, the blob tool); mlir, MLIR's own serialiser of the target attribute (its "       \
    "gpu-module-to-binary pass on a copy of the gpu.module), for a body LLVM does not compile")      \
  X(llvm_target, REQUIRED, STRING, LLVM_TARGET, "LLVM backend to initialise and link, e.g. NVPTX")              \
  X(llvm_chip, OPTIONAL, LIST, NONE, "GLOB:CPU: the CPU LLVM's backend gets for matching chips, where not the chip") \
  X(asm_parser, DEFAULT("no"), ENUM((yes, no)), NONE, "yes: the backend has an assembly parser (inline asm needs it)") \
  X(isolate, DEFAULT("asked"), CENUM(isolate, ISOLATE_, (asked, always)), NONE, "asked: jobs run in the calling "  \
    "process unless options ask for isolation; always: each job runs in a child process of its own, for a " \
    "backend that keeps one module's state in the process for the next (LLVM 22's SPIR-V backend)")    \
  /* the end of the list: every key's line above ends in a backslash */

/* The C enums of the CENUM keys, each from its key's line: GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_ENUM)
** declares enum T { P##W, ... } for each CENUM(T, P, (W, ...)), a constant per word in
** its order, and nothing for another key. */
#define GPUBLOB_SPEC_ENUM(key, presence, type, form, doc) GPUBLOB_SPEC_ENUM_##type
#define GPUBLOB_SPEC_ENUM_STRING
#define GPUBLOB_SPEC_ENUM_LIST
#define GPUBLOB_SPEC_ENUM_TEMPLATE(type, placeholders)
#define GPUBLOB_SPEC_ENUM_ENUM(words)
#define GPUBLOB_SPEC_ENUM_CENUM(tag, prefix, words) \
  enum tag { GPUBLOB_SPEC_EACH(GPUBLOB_SPEC_CONSTANT, prefix, GPUBLOB_SPEC_UNPAREN words) };
#define GPUBLOB_SPEC_ENUM_INTEGER(min, max, unit)
#define GPUBLOB_SPEC_CONSTANT(prefix, word) prefix##word,

/* The words (W, ...) of an ENUM or a CENUM as one blank-separated string ("asm obj"),
** for specgen: " asm" " obj" without its first blank. */
#define GPUBLOB_SPEC_WORDS(words) (&(GPUBLOB_SPEC_EACH(GPUBLOB_SPEC_SPACED_WORD, ~, GPUBLOB_SPEC_UNPAREN words))[1])
#define GPUBLOB_SPEC_SPACED_WORD(unused, word) " " #word

/* GPUBLOB_SPEC_EACH(F, P, W1, ..., Wn): F(P, W1) ... F(P, Wn), for 1 to 8 words. */
#define GPUBLOB_SPEC_UNPAREN(...) __VA_ARGS__
#define GPUBLOB_SPEC_EACH(f, p, ...) GPUBLOB_SPEC_EACH_N(GPUBLOB_SPEC_COUNT(__VA_ARGS__), f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_N(n, f, p, ...) GPUBLOB_SPEC_EACH_PASTE(n)(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_PASTE(n) GPUBLOB_SPEC_EACH_##n
#define GPUBLOB_SPEC_COUNT(...) GPUBLOB_SPEC_NINTH(__VA_ARGS__, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define GPUBLOB_SPEC_NINTH(w1, w2, w3, w4, w5, w6, w7, w8, n, ...) n
#define GPUBLOB_SPEC_EACH_1(f, p, w) f(p, w)
#define GPUBLOB_SPEC_EACH_2(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_1(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_3(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_2(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_4(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_3(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_5(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_4(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_6(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_5(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_7(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_6(f, p, __VA_ARGS__)
#define GPUBLOB_SPEC_EACH_8(f, p, w, ...) f(p, w) GPUBLOB_SPEC_EACH_7(f, p, __VA_ARGS__)

GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_ENUM)

/* The number of keys, for #if: the generated table checks it was written for this list. */
#define GPUBLOB_SPEC_ONE_KEY(key, presence, type, form, doc) +1
#define GPUBLOB_SPEC_KEY_COUNT (0 GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_ONE_KEY))

/* GPUBLOB_SPEC_FIELD(...): the field (or, for a CENUM key, the two) a key is in
** target_desc: GPUBLOB_SPEC_KEYS(GPUBLOB_SPEC_FIELD) declares them all.  TYPE picks its
** C type by name (GPUBLOB_SPEC_CTYPE_ and the TYPE, applied to TYPE's arguments), and
** whether it has a KEY_name: GPUBLOB_SPEC_NAME_ and the TYPE, applied to TYPE's
** arguments where it has them, names a macro that is then applied to the key. */
#define GPUBLOB_SPEC_FIELD(key, presence, type, form, doc) \
  GPUBLOB_SPEC_CTYPE_##type key;                     \
  GPUBLOB_SPEC_NAME_##type(key)
#define GPUBLOB_SPEC_CTYPE_STRING const char *
#define GPUBLOB_SPEC_CTYPE_LIST const char *
#define GPUBLOB_SPEC_CTYPE_TEMPLATE(type, placeholders) GPUBLOB_SPEC_CTYPE_##type
#define GPUBLOB_SPEC_CTYPE_ENUM(values) const char *
#define GPUBLOB_SPEC_CTYPE_CENUM(tag, prefix, values) enum tag
#define GPUBLOB_SPEC_CTYPE_INTEGER(min, max, unit) int
#define GPUBLOB_SPEC_NAME_STRING(key)
#define GPUBLOB_SPEC_NAME_LIST(key)
#define GPUBLOB_SPEC_NAME_TEMPLATE(type, placeholders) GPUBLOB_SPEC_NO_NAME
#define GPUBLOB_SPEC_NAME_ENUM(values) GPUBLOB_SPEC_NO_NAME
#define GPUBLOB_SPEC_NAME_CENUM(tag, prefix, values) GPUBLOB_SPEC_WORD_NAME
#define GPUBLOB_SPEC_NAME_INTEGER(min, max, unit) GPUBLOB_SPEC_NO_NAME
#define GPUBLOB_SPEC_NO_NAME(key)
#define GPUBLOB_SPEC_WORD_NAME(key) const char *key##_name;

#endif /* GPUBLOB_SPEC_KEYS_H */
