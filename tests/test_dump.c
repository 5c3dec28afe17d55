/* test_dump: the dump directory (dump_dir, --dump-dir) and the CLI's --emit-c.
** Dumps: for nvptx (a cubin by ptxas; skipped without CUDA), amdgcn (an hsaco by
** ld.lld, for a target id) and spirv, every file is there and not empty; the .ll
** files parse with llvm-as; the ISA is what -f asm gives and the object an ELF
** relocatable (llvm-readelf); the tool's script, run from another directory, makes
** the very blob the call gave; the blob is the one a call without dumps gives.
** Isolated jobs (their dumps made in the child) on two threads, MLIR's gpu.module
** in the names, a failing tool (TOOL, and its script and log stay), a dump
** directory that cannot be made or a dump that cannot be written (IO, naming it,
** no output), the cache (a call with dumps compiles, and stores), and the CLI.
** --emit-c: the header compiled into a C program (cc -std=c99 -Wall -Werror) whose
** arrays are compared with the blob files the CLI wrote, for target ids and for
** MLIR's one output, from the compiler and from the front on a cache hit. */
#define _GNU_SOURCE
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define CLI "build/gpublob"
#define LLVM_AS LLVM_BINDIR "/llvm-as"
#define READELF LLVM_BINDIR "/llvm-readelf"
#define LD_LLD LLVM_BINDIR "/ld.lld"
#define BUNDLER LLVM_BINDIR "/clang-offload-bundler"
#define NO_LD_LLD "the ld.lld program not found (lld-22): the dumped script runs it"

static gpublob *g;

static unsigned char *read_example(const char *path, size_t *n) {
  unsigned char *d = slurp(path, n);
  if (!d) printf("  (cannot read %s)\n", path);
  return d;
}

static int compile_file(const gpublob_options *o, const char *path, int kind, gpublob_result *r) {
  size_t n;
  unsigned char *d = read_example(path, &n);
  const char *slash = strrchr(path, '/');
  gpublob_input in = {kind, d ? (const void *)d : "", d ? n : 0, NULL, slash ? slash + 1 : path};
  int rc = gpublob_compile(g, o, &in, r);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  free(d);
  return rc;
}

/* DIR/STEM.TARGET.CHIP.what */
static const char *dumped(const char *dir, const char *prefix, const char *what) {
  static char ring[8][4200];
  static int k;
  char *p = ring[k++ % 8];
  snprintf(p, sizeof ring[0], "%s/%s%s", dir, prefix, what);
  return p;
}

static int nonempty(const char *path) {
  struct stat st;
  return !stat(path, &st) && S_ISREG(st.st_mode) && st.st_size > 0;
}

static int same_bytes(const char *path, const void *data, size_t size) {
  size_t n;
  unsigned char *d = slurp(path, &n);
  int same = d && n == size && !memcmp(d, data, size);
  free(d);
  return same;
}

static int parses(const char *ll) {
  const char *argv[] = {LLVM_AS, ll, "-o", "/dev/null", NULL};
  char *out = NULL;
  int rc = run(argv, &out);
  if (rc) printf("  (llvm-as %s: %s)\n", ll, shown(out));
  free(out);
  return rc == 0;
}

/* The dumped script, run from / by sh: its exit status. */
static int run_script(const char *sh, char **out) {
  const char *argv[] = {"/bin/sh", "-c", "cd / && exec /bin/sh \"$0\"", sh, NULL};
  return run(argv, out);
}

/* ---- one target: every file, the script's blob ---- */
typedef struct dump_case {
  const char *name, *example, *target, *prefix; /* prefix: STEM.TARGET.CHIP. */
  const char *isa, *object;                      /* the dump's ISA and object names; NULL: none */
  const char *blob;                              /* what the script writes; NULL: no script */
} dump_case;

static void test_case(const dump_case *c, const char *dir) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = c->target,
                       .tool_mode = GPUBLOB_TOOL_PROGRAM, .dump_dir = dir};
  gpublob_result r = {0}, plain = {0}, asm_r = {0};
  char name[256];
  snprintf(name, sizeof name, "%s: the call with a dump directory succeeds", c->name);
  int rc = compile_file(&o, c->example, GPUBLOB_INPUT_LLVM, &r);
  check(rc == 0 && r.count == 1, name, "rc %d, %zu outputs", rc, r.count);
  const char *lls[] = {"0-input.ll", "1-linked.ll", "2-optimised.ll"};
  for (int i = 0; i < 3; i++) {
    const char *p = dumped(dir, c->prefix, lls[i]);
    snprintf(name, sizeof name, "%s: %s is there, not empty, and parses with llvm-as", c->name, lls[i]);
    check(nonempty(p) && parses(p), name, "%s", p);
  }
  snprintf(name, sizeof name, "%s: the ISA %s is there and is what -f asm gives", c->name, shown(c->isa));
  gpublob_options oa = o;
  oa.format = GPUBLOB_FORMAT_ASM;
  oa.dump_dir = NULL;
  rc = compile_file(&oa, c->example, GPUBLOB_INPUT_LLVM, &asm_r);
  check_if(rc == 0 && asm_r.count == 1 && c->isa,
           same_bytes(dumped(dir, c->prefix, c->isa), asm_r.outputs[0].blob.data, asm_r.outputs[0].blob.size),
           name, "%s", dumped(dir, c->prefix, c->isa));
  if (c->object && !c->blob) { /* no blob tool: the object is the blob */
    snprintf(name, sizeof name, "%s: the object %s is the blob", c->name, c->object);
    check_if(r.count == 1, same_bytes(dumped(dir, c->prefix, c->object), r.outputs[0].blob.data, r.outputs[0].blob.size),
             name, "%s", dumped(dir, c->prefix, c->object));
    snprintf(name, sizeof name, "%s: no tool script without a blob tool", c->name);
    check(!exists(dumped(dir, c->prefix, "4-tool.sh")), name, "%s", dumped(dir, c->prefix, "4-tool.sh"));
  } else if (c->object) {
    const char *argv[] = {READELF, "--file-header", dumped(dir, c->prefix, c->object), NULL};
    char *out = NULL;
    rc = run(argv, &out);
    snprintf(name, sizeof name, "%s: the object %s is an ELF relocatable (llvm-readelf)", c->name, c->object);
    check(rc == 0 && contains(out, "REL (Relocatable file)"), name, "exit %d: %s", rc, shown(out));
    free(out);
  }
  if (c->blob) {
    const char *sh = dumped(dir, c->prefix, "4-tool.sh"), *log = dumped(dir, c->prefix, "5-tool.log");
    struct stat st;
    snprintf(name, sizeof name, "%s: 4-tool.sh is there, mode 0755, and 5-tool.log is not empty", c->name);
    check(!stat(sh, &st) && (st.st_mode & 0777) == 0755 && nonempty(log), name, "%s %o", sh, (unsigned)st.st_mode);
    char *out = NULL;
    rc = run_script(sh, &out);
    snprintf(name, sizeof name, "%s: the script, run from /, writes the blob the call gave (%s)", c->name, c->blob);
    check_if(r.count == 1, rc == 0 && same_bytes(dumped(dir, c->prefix, c->blob), r.outputs[0].blob.data,
                                                  r.outputs[0].blob.size),
             name, "exit %d: %s", rc, shown(out));
    free(out);
  }
  o.dump_dir = NULL;
  rc = compile_file(&o, c->example, GPUBLOB_INPUT_LLVM, &plain);
  snprintf(name, sizeof name, "%s: the blob is the one a call without dumps gives", c->name);
  check_if(rc == 0 && r.count == 1 && plain.count == 1,
           plain.outputs[0].blob.size == r.outputs[0].blob.size &&
               !memcmp(plain.outputs[0].blob.data, r.outputs[0].blob.data, r.outputs[0].blob.size),
           name, "%zu and %zu bytes", plain.count ? plain.outputs[0].blob.size : 0, r.count ? r.outputs[0].blob.size : 0);
  gpublob_result_free(&r);
  gpublob_result_free(&plain);
  gpublob_result_free(&asm_r);
}

static void test_targets(void) {
  static const dump_case cases[] = {
      {"nvptx", "examples/saxpy_nvptx.ll", "nvptx:sm_80", "saxpy_nvptx.nvptx.sm_80.", "3-isa.ptx", NULL,
       "6-blob.cubin"},
      {"amdgcn", "examples/saxpy_amdgcn.ll", "amdgcn:gfx90a:xnack+", "saxpy_amdgcn.amdgcn.gfx90a-xnack+.",
       "3-isa.s", "3-object.o", "6-blob.hsaco"},
      {"spirv", "examples/saxpy_spirv.ll", "spirv", "saxpy_spirv.spirv.generic.", "3-isa.spvasm",
       "3-object.spv", NULL},
      /* a kernel whose ISA a copy of the module with other use lists (LLVMCloneModule's)
      ** emitted with some instructions in another order than the object's */
      {"amdgcn matmul", "bench/kernels/matmul_amdgcn.ll", "amdgcn:gfx90a", "matmul_amdgcn.amdgcn.gfx90a.",
       "3-isa.s", "3-object.o", "6-blob.hsaco"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    if (i == 0 && !have_ptxas()) {
      skip("nvptx dumps and ptxas's script", "no CUDA toolkit (ptxas)");
      continue;
    }
    if ((i == 1 || i == 3) && !need_rocm("amdgcn dumps and ld.lld's script")) continue;
    if (i == 3 && !have_llvm_cxx()) {
      skip("amdgcn matmul: the dump's ISA is the object's", "a build without src/passes.cpp copies the module "
           "with LLVMCloneModule (docs/cli.md, --dump-dir)");
      continue;
    }
    if ((i == 1 || i == 3) && !have_program(LD_LLD)) {
      skip("amdgcn dumps and ld.lld's script", NO_LD_LLD);
      continue;
    }
    char dir[64];
    snprintf(dir, sizeof dir, "made/for/%s", cases[i].name); /* made if missing, several levels */
    test_case(&cases[i], tmp_path(dir));
  }
}

/* ---- isolated jobs on two threads; MLIR ---- */
static void test_isolate(void) {
  const char *iso = tmp_path("iso"), *inproc = tmp_path("inproc");
  gpublob_target_choice t[] = {{"amdgcn:gfx90a:xnack+,gfx942", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = t, .ntargets = 1, .jobs = 2,
                       .flags = GPUBLOB_FLAG_ISOLATE, .dump_dir = iso};
  gpublob_result r = {0}, r2 = {0};
  int rc = compile_file(&o, "examples/saxpy_amdgcn.ll", GPUBLOB_INPUT_LLVM, &r);
  check(rc == 0 && r.count == 2, "isolate, -j 2: two chips compile with a dump directory", "rc %d", rc);
  const char *chips[] = {"saxpy_amdgcn.amdgcn.gfx90a-xnack+.", "saxpy_amdgcn.amdgcn.gfx942."};
  const char *files[] = {"0-input.ll", "1-linked.ll", "2-optimised.ll", "3-isa.s", "3-object.o", "4-tool.sh",
                         "5-tool.log"};
  char missing[2048] = "";
  for (int c = 0; c < 2; c++)
    for (size_t f = 0; f < sizeof files / sizeof *files; f++)
      if (!nonempty(dumped(iso, chips[c], files[f])))
        snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s%s", chips[c], files[f]);
  check(!*missing, "isolate, -j 2: every dump of both jobs is there (the child's too)", "missing:%s", missing);
  o.flags = 0;
  o.dump_dir = inproc;
  rc = compile_file(&o, "examples/saxpy_amdgcn.ll", GPUBLOB_INPUT_LLVM, &r2);
  size_t n;
  unsigned char *a = slurp(dumped(inproc, chips[0], "2-optimised.ll"), &n);
  check_if(rc == 0 && a, same_bytes(dumped(iso, chips[0], "2-optimised.ll"), a, n),
           "isolate: the child's optimised IR is the in-process one", "%s", dumped(iso, chips[0], "2-optimised.ll"));
  free(a);
  char *out = NULL;
  rc = run_script(dumped(iso, chips[1], "4-tool.sh"), &out);
  if (have_program(LD_LLD))
    check_if(r.count == 2, rc == 0 && same_bytes(dumped(iso, chips[1], "6-blob.hsaco"), r.outputs[1].blob.data,
                                                r.outputs[1].blob.size),
             "isolate: gfx942's script makes the blob the call gave", "exit %d: %s", rc, shown(out));
  else
    skip("isolate: gfx942's script makes the blob the call gave", NO_LD_LLD);
  free(out);
  gpublob_result_free(&r);
  gpublob_result_free(&r2);
  /* a chip asked for twice, with other features: the second job's names get -2 */
  const char *twice = tmp_path("twice");
  gpublob_target_choice t2[] = {{"amdgcn:gfx942", NULL, NULL}, {"amdgcn:gfx942", NULL, "+cumode"}};
  gpublob_options o2 = {.version = GPUBLOB_OPTIONS_VERSION, .targets = t2, .ntargets = 2, .jobs = 2, .dump_dir = twice};
  rc = compile_file(&o2, "examples/saxpy_amdgcn.ll", GPUBLOB_INPUT_LLVM, &r);
  out = NULL;
  int ran = rc ? -1 : run_script(dumped(twice, "saxpy_amdgcn.amdgcn.gfx942-2.", "4-tool.sh"), &out);
  if (!have_program(LD_LLD))
    skip("one chip twice in a call: the second job's dumps are CHIP-2, and its script makes its own blob", NO_LD_LLD);
  else
    check_if(rc == 0 && r.count == 2,
             ran == 0 && nonempty(dumped(twice, "saxpy_amdgcn.amdgcn.gfx942.", "2-optimised.ll")) &&
                 same_bytes(dumped(twice, "saxpy_amdgcn.amdgcn.gfx942-2.", "6-blob.hsaco"), r.outputs[1].blob.data,
                            r.outputs[1].blob.size),
             "one chip twice in a call: the second job's dumps are CHIP-2, and its script makes its own blob",
             "exit %d: %s", ran, shown(out));
  free(out);
  gpublob_result_free(&r);
}

/* ---- packs: the pack script, from the members' dumped blobs ---- */
static void test_pack(void) {
  static const struct {
    const char *name;
    int mode;
  } modes[] = {{"in-process (the program's equivalent)", GPUBLOB_TOOL_AUTO}, {"program", GPUBLOB_TOOL_PROGRAM}};
  for (size_t i = 0; i < 2; i++) {
    char sub[32], name[256];
    snprintf(name, sizeof name, "pack, %s: 7-pack.sh, run from /, makes the very bundle the call gave", modes[i].name);
    if (!have_program(BUNDLER) || (modes[i].mode == GPUBLOB_TOOL_PROGRAM && !have_program(LD_LLD))) {
      skip(name, "the script runs clang-offload-bundler (clang-tools-22), and the program mode ld.lld (lld-22): "
                 "one is not found");
      continue;
    }
    snprintf(sub, sizeof sub, "pack%zu", i);
    const char *dir = tmp_path(sub);
    gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a:xnack+,gfx942",
                         .format = GPUBLOB_FORMAT_PACK, .tool_mode = modes[i].mode, .dump_dir = dir};
    gpublob_result r = {0};
    int rc = compile_file(&o, "examples/saxpy_amdgcn.ll", GPUBLOB_INPUT_LLVM, &r);
    const char *prefix = "saxpy_amdgcn.amdgcn.gfx90a-xnack++gfx942.";
    char *out = NULL;
    int ran = rc ? -1 : run_script(dumped(dir, prefix, "7-pack.sh"), &out);
    check_if(rc == 0 && r.count == 1, ran == 0 && same_bytes(dumped(dir, prefix, "7-pack.hipfb"), r.outputs[0].blob.data,
                                                             r.outputs[0].blob.size),
             name, "exit %d: %s", ran, shown(out));
    free(out);
    gpublob_result_free(&r);
  }
}

/* ---- the in-process provider: its options, and ptxas's equivalent ---- */
static void test_provider(void) {
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx:sm_80",
                       .tool_mode = GPUBLOB_TOOL_INPROCESS, .dump_dir = tmp_path("nvjitlink")};
  gpublob_tool_info t;
  if (!have_ptxas() || gpublob_tool_info_get(g, &o, 1, &t, sizeof t) || strcmp(t.kind, "in-process")) {
    skip("nvJitLink's script", "no CUDA toolkit with nvJitLink and ptxas");
    return;
  }
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy_nvptx.ll", GPUBLOB_INPUT_LLVM, &r);
  size_t n;
  char *sh = (char *)slurp(dumped(o.dump_dir, "saxpy_nvptx.nvptx.sm_80.", "4-tool.sh"), &n);
  check(rc == 0 && contains(sh, "# The blob was made in-process by nvjitlink") && contains(sh, "-arch=sm_80") &&
            contains(sh, "/ptxas'"),
        "nvJitLink: the script says the blob was made in-process, with its options, and runs ptxas instead",
        "rc %d: %s", rc, shown(sh));
  char *out = NULL;
  int ran = run_script(dumped(o.dump_dir, "saxpy_nvptx.nvptx.sm_80.", "4-tool.sh"), &out);
  unsigned char *cubin = slurp(dumped(o.dump_dir, "saxpy_nvptx.nvptx.sm_80.", "6-blob.cubin"), &n);
  check(ran == 0 && elf_machine_of(cubin, n) == EM_CUDA,
        "nvJitLink: ptxas's equivalent, run from the script, makes a cubin of the dumped PTX", "exit %d: %s", ran,
        shown(out));
  free(out);
  free(cubin);
  free(sh);
  gpublob_result_free(&r);
}

static void test_mlir(void) {
  if (!gpublob_mlir_enabled()) {
    skip("MLIR dumps", "built without MLIR");
    return;
  }
  const char *dir = tmp_path("mlir");
  gpublob_target_choice t[] = {{"amdgcn:gfx942", NULL, NULL}};
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = t, .ntargets = 1, .dump_dir = dir};
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy.mlir", GPUBLOB_INPUT_MLIR, &r);
  const char *files[] = {"0-input.ll", "1-linked.ll", "2-optimised.ll", "3-isa.s", "3-object.o", "4-tool.sh"};
  char missing[1024] = "";
  for (size_t f = 0; f < sizeof files / sizeof *files; f++)
    if (!nonempty(dumped(dir, "saxpy.kernels.amdgcn.gfx942.", files[f])))
      snprintf(missing + strlen(missing), sizeof missing - strlen(missing), " %s", files[f]);
  check(rc == 0 && !*missing, "MLIR: the dumps are named STEM.MODULE.TARGET.CHIP (saxpy.kernels.amdgcn.gfx942)",
        "rc %d, missing:%s", rc, missing);
  check(parses(dumped(dir, "saxpy.kernels.amdgcn.gfx942.", "0-input.ll")),
        "MLIR: the translated module's dump parses with llvm-as", "%s", dir);
  gpublob_result_free(&r);
}

/* ---- failures ---- */
static void test_failing_tool(void) {
  const char *dir = tmp_path("failing"), *tool = tmp_path("bad-ld.lld");
  const char script[] = "#!/bin/sh\necho 'boom: cannot link this' >&2\nexit 3\n";
  spill(tool, script, sizeof script - 1);
  chmod(tool, 0755);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx942", .tool = tool, .dump_dir = dir};
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy_amdgcn.ll", GPUBLOB_INPUT_LLVM, &r);
  check(rc == GPUBLOB_TOOL && r.count == 0, "a failing tool: the call fails with TOOL and no output", "rc %d: %s", rc,
        gpublob_error_message(g));
  size_t n = 0;
  char *sh = (char *)slurp(dumped(dir, "saxpy_amdgcn.amdgcn.gfx942.", "4-tool.sh"), &n);
  char *log = (char *)slurp(dumped(dir, "saxpy_amdgcn.amdgcn.gfx942.", "5-tool.log"), &n);
  check(contains(sh, tool) && contains(sh, "3-object.o"), "a failing tool: its script stays, naming it and the object",
        "%s", shown(sh));
  check(contains(log, "boom: cannot link this") && contains(log, "exited with status 3"),
        "a failing tool: its log stays, with its stderr and its exit status", "%s", shown(log));
  check(nonempty(dumped(dir, "saxpy_amdgcn.amdgcn.gfx942.", "3-object.o")), "a failing tool: the object it failed on stays",
        "%s", dir);
  free(sh);
  free(log);
}

static void test_unwritable(void) {
  const char *file = tmp_path("a-file");
  spill(file, "x", 1);
  char dir[4200];
  snprintf(dir, sizeof dir, "%s/sub", file);
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv", .dump_dir = dir};
  gpublob_result r = {0};
  int rc = compile_file(&o, "examples/saxpy_spirv.ll", GPUBLOB_INPUT_LLVM, &r);
  check(rc == GPUBLOB_IO && r.count == 0 && contains(gpublob_error_message(g), dir),
        "a dump directory that cannot be made: IO naming it, no output", "rc %d: %s", rc, gpublob_error_message(g));
  const char *blocked = tmp_path("blocked");
  mkdir(blocked, 0777);
  const char *in_way = dumped(blocked, "saxpy_spirv.spirv.generic.", "2-optimised.ll");
  mkdir(in_way, 0777); /* a directory where the file goes: rename fails */
  o.dump_dir = blocked;
  rc = compile_file(&o, "examples/saxpy_spirv.ll", GPUBLOB_INPUT_LLVM, &r);
  check(rc == GPUBLOB_IO && r.count == 0 && contains(gpublob_error_message(g), in_way),
        "a dump file that cannot be written: IO naming it, no output", "rc %d: %s", rc, gpublob_error_message(g));
  check(leftovers(blocked, ".tmp-") == 0, "a dump file that cannot be written leaves no temporary", "%d left",
        leftovers(blocked, ".tmp-"));
  o.flags = GPUBLOB_FLAG_ISOLATE;
  rc = compile_file(&o, "examples/saxpy_spirv.ll", GPUBLOB_INPUT_LLVM, &r);
  check(rc == GPUBLOB_IO && r.count == 0 && contains(gpublob_error_message(g), in_way),
        "isolate: a dump file the child cannot write is IO naming it", "rc %d: %s", rc, gpublob_error_message(g));
}

/* ---- the cache: a call with dumps compiles, and stores ---- */
static void test_cache(void) {
  const char *cache = tmp_path("cache"), *dir = tmp_path("cached-dumps");
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "spirv", .cache_dir = cache};
  gpublob_result r = {0};
  gpublob_stats s;
  int rc = compile_file(&o, "examples/saxpy_spirv.ll", GPUBLOB_INPUT_LLVM, &r);
  gpublob_result_free(&r);
  o.dump_dir = dir;
  rc |= compile_file(&o, "examples/saxpy_spirv.ll", GPUBLOB_INPUT_LLVM, &r);
  gpublob_stats_get(g, &s, sizeof s);
  check(rc == 0 && s.cache_hits == 0 && nonempty(dumped(dir, "saxpy_spirv.spirv.generic.", "0-input.ll")),
        "cache: a call with a dump directory compiles (and dumps) where the cache has the entry",
        "rc %d, %zu hits", rc, s.cache_hits);
  gpublob_result_free(&r);
  size_t n;
  unsigned char *d = read_example("examples/saxpy_spirv.ll", &n);
  gpublob_input in = {GPUBLOB_INPUT_LLVM, d, n, NULL, "saxpy_spirv.ll"};
  rc = gpublob_cache_lookup(g, &o, &in, &r);
  check(rc == GPUBLOB_NOTCACHED, "cache: gpublob_cache_lookup with a dump directory is NOTCACHED", "rc %d", rc);
  o.dump_dir = NULL;
  rc = gpublob_cache_lookup(g, &o, &in, &r);
  check(rc == GPUBLOB_OK, "cache: without it the same lookup hits (dump_dir is not in the key)", "rc %d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
  free(d);
}

/* ---- the CLI ---- */
static void test_cli(void) {
  const char *dir = tmp_path("cli-dumps"), *out = tmp_path("cli-out/");
  const char *argv[] = {CLI, "-t", "amdgcn:gfx90a:xnack+", "--dump-dir", dir, "-o", out, "examples/saxpy_amdgcn.ll", NULL};
  char *log = NULL;
  int rc = run(argv, &log); /* this run caches it: the next one, through the front, must compile */
  free(log);
  unlink(dumped(dir, "saxpy_amdgcn.amdgcn.gfx90a-xnack+.", "4-tool.sh"));
  rc |= run(argv, &log);
  check(rc == 0 && nonempty(dumped(dir, "saxpy_amdgcn.amdgcn.gfx90a-xnack+.", "4-tool.sh")),
        "CLI: --dump-dir through the front, with the entry cached, compiles and dumps", "exit %d: %s", rc, shown(log));
  free(log);
}

/* ---- --emit-c ---- */
/* A table's line, as the reader prints it and kernels_expected makes it: the count, then
** the first kernel's name, registers, spill store and load bytes, barriers, occupancy,
** limiter ("-" for ""), blocks a SM and waves a SIMD; NO_KERNEL for an empty table. */
#define KERNEL_LINE "%zu %s %lld %lld %lld %lld %.17g %s %lld %lld"
#define NO_KERNEL "0 - -1 -1 -1 -1 -1 - -1 -1"
/* A parameter table's line, as the reader prints it and params_expected makes it: the
** count, then each row's PARAM_ROW (kernel:index@offset:size kind hidden space name,
** "-" for ""); NO_PARAMS for an empty table. */
#define PARAM_ROW " %zu:%lld@%lld:%lld %s %d %s %s"
#define NO_PARAMS "0"

/* The reader's own code, after the header: put() writes an array, show() prints a table's line. */
static const char reader_code[] =
    "#include <stdio.h>\n"
    "static int put(const char *path, const unsigned char *d, size_t n) {\n"
    "  FILE *f = fopen(path, \"wb\");\n"
    "  int bad = !f || fwrite(d, 1, n, f) != n;\n"
    "  return (f && fclose(f)) || bad;\n}\n"
    "static void show(size_t n, const gpublob_emitted_kernel *k) {\n"
    "  if (!n) printf(\"%s\\n\", \"" NO_KERNEL "\");\n"
    "  else printf(\"" KERNEL_LINE "\\n\", n, k->name, k->registers,\n"
    "              k->spill_store_bytes, k->spill_load_bytes, k->barriers, k->occupancy,\n"
    "              *k->occupancy_limiter ? k->occupancy_limiter : \"-\", k->blocks_per_sm, k->waves_per_simd);\n}\n"
    "static void show_params(size_t n, const gpublob_emitted_param *p) {\n"
    "  printf(\"%zu\", n);\n"
    "  for (size_t i = 0; i < n; i++)\n"
    "    printf(\"" PARAM_ROW "\", p[i].kernel, p[i].index, p[i].offset, p[i].size, p[i].kind, p[i].hidden,\n"
    "           *p[i].address_space ? p[i].address_space : \"-\", *p[i].name ? p[i].name : \"-\");\n"
    "  printf(\"\\n\");\n}\n";

/* A C program including header that writes array NAMES[i] to argv[i + 1], and prints
** each NAMES[i]'s kernel table line (KERNEL_LINE), then each one's parameter table line
** (NAME_params[], NAME_param_count): built with cc -std=c99 -Wall -Werror.  0 when it
** builds. */
static int build_reader(const char *header, const char *const *names, size_t n, const char *exe) {
  char src[8192], path[4200];
  int at = snprintf(src, sizeof src, "#include \"%s\"\n%sint main(int argc, char **argv) {\n  int bad = argc != %zu;\n",
                    header, reader_code, n + 1);
  for (size_t i = 0; i < n && !(at < 0 || (size_t)at >= sizeof src); i++)
    at += snprintf(src + at, sizeof src - (size_t)at,
                   "  if (!bad) bad |= put(argv[%zu], %s, %s_size);\n  show(%s_kernel_count, %s_kernels);\n",
                   i + 1, names[i], names[i], names[i], names[i]);
  for (size_t i = 0; i < n && !(at < 0 || (size_t)at >= sizeof src); i++)
    at += snprintf(src + at, sizeof src - (size_t)at, "  show_params(%s_param_count, %s_params);\n", names[i], names[i]);
  if (at >= 0 && (size_t)at < sizeof src) snprintf(src + at, sizeof src - (size_t)at, "  return bad;\n}\n");
  snprintf(path, sizeof path, "%s.c", exe);
  spill(path, src, strlen(src));
  const char *argv[] = {"cc", "-std=c99", "-Wall", "-Werror", path, "-o", exe, NULL};
  char *out = NULL;
  int rc = run(argv, &out);
  if (rc) printf("  (cc: %s)\n", shown(out));
  free(out);
  return rc;
}

/* What the table should say for output i of r, by the library's own reader: its
** KERNEL_LINE. */
static void kernels_expected(const gpublob_result *r, size_t i, char *line, size_t size) {
  size_t n = 0;
  gpublob_kernel_info k;
  if (gpublob_kernel_count(g, r, i, &n)) n = 0;
  if (!n || gpublob_kernel_get(g, r, i, 0, &k, sizeof k)) {
    snprintf(line, size, "%s\n", NO_KERNEL);
    return;
  }
  snprintf(line, size, KERNEL_LINE "\n", n, k.name, k.registers, k.spill_store_bytes, k.spill_load_bytes, k.barriers,
           k.occupancy, *k.occupancy_limiter ? k.occupancy_limiter : "-", k.blocks_per_sm, k.waves_per_simd);
}

/* What the parameter table should say for output i of r, by gpublob_param_get: its line
** (NO_PARAMS and PARAM_ROWs), appended to line. */
static void params_expected(const gpublob_result *r, size_t i, char *line, size_t size) {
  char rows[2048] = "";
  size_t n = 0, shown = 0, at = strlen(line);
  if (gpublob_kernel_count(g, r, i, &n)) n = 0;
  for (size_t k = 0; k < n; k++) {
    size_t np = 0;
    if (gpublob_param_count(g, r, i, k, &np)) np = 0;
    for (size_t p = 0; p < np; p++) {
      gpublob_param_info a;
      if (gpublob_param_get(g, r, i, k, p, &a, sizeof a)) continue;
      size_t used = strlen(rows);
      snprintf(rows + used, sizeof rows - used, PARAM_ROW, k, a.index, a.offset, a.size, a.kind, a.hidden,
               *a.address_space ? a.address_space : "-", *a.name ? a.name : "-");
      shown++;
    }
  }
  if (at < size) snprintf(line + at, size - at, "%zu%s\n", shown, rows);
}

/* Whether a table's line (its first) has sensible 1.4 figures: an occupancy of 0 to 1 and a
** limiter among the four; NVIDIA: no spill bytes (ptxas's report of saxpy), blocks a SM;
** AMD: no report, waves a SIMD. */
static int kernel_line_sane(const char *line, int nvidia) {
  size_t n;
  char name[64], limiter[16];
  long long regs, store, load, barriers, blocks, waves;
  double occ;
  if (!line || sscanf(line, "%zu %63s %lld %lld %lld %lld %lf %15s %lld %lld", &n, name, &regs, &store, &load,
                      &barriers, &occ, limiter, &blocks, &waves) != 10)
    return 0;
  int words = !strcmp(limiter, "warps") || !strcmp(limiter, "registers") || !strcmp(limiter, "shared") ||
              !strcmp(limiter, "blocks");
  int report = nvidia ? store == 0 && load == 0 && barriers == 0 && blocks > 0 && waves == -1
                      : store == -1 && load == -1 && barriers == -1 && blocks == -1 && waves > 0;
  return n >= 1 && occ > 0 && occ <= 1 && words && report;
}

static void test_emit_c(void) {
  const char *h = tmp_path("blobs.h"), *dir = tmp_path("emit/"), *exe = tmp_path("reader");
  const char *argv[] = {CLI, "-t", "amdgcn:gfx90a:xnack+,gfx942", "-o", dir, "--emit-c", h, "--time",
                        "examples/saxpy_amdgcn.ll", NULL};
  char *log = NULL;
  int rc = run(argv, &log);
  check(rc == 0 && exists(h), "--emit-c: the CLI writes the header beside its outputs", "exit %d: %s", rc, shown(log));
  free(log);
  size_t hn = 0;
  unsigned char *first = slurp(h, &hn);
  const char *names[] = {"saxpy_amdgcn_amdgcn_gfx90a_xnack_plus", "saxpy_amdgcn_amdgcn_gfx942"};
  rc = build_reader(h, names, 2, exe);
  check(rc == 0, "--emit-c: a C program using every array builds with cc -std=c99 -Wall -Werror (target id "
        "gfx90a:xnack+ named gfx90a_xnack_plus)", "exit %d", rc);
  const char *blob1 = tmp_path("emit/saxpy_amdgcn.amdgcn.gfx90a-xnack+.hsaco"), *blob2 = tmp_path("emit/saxpy_amdgcn.amdgcn.gfx942.hsaco");
  const char *got1 = tmp_path("got1"), *got2 = tmp_path("got2");
  const char *rargv[] = {exe, got1, got2, NULL};
  char *out = NULL;
  rc = run(rargv, &out);
  size_t n1, n2;
  unsigned char *b1 = slurp(blob1, &n1), *b2 = slurp(blob2, &n2);
  check_if(b1 && b2, rc == 0 && same_bytes(got1, b1, n1) && same_bytes(got2, b2, n2),
           "--emit-c: each array holds the bytes of the blob file the CLI wrote", "exit %d: %s", rc, shown(out));
  /* the table, against the library's reader of the same blobs */
  gpublob_result r = {0};
  gpublob_output outs[2] = {{{b1, n1, ".hsaco"}, "amdgcn", "gfx90a:xnack+", "ld.lld"},
                            {{b2, n2, ".hsaco"}, "amdgcn", "gfx942", "ld.lld"}};
  r.outputs = outs;
  r.count = 2;
  char want[4096], line[256];
  kernels_expected(&r, 0, want, sizeof want);
  kernels_expected(&r, 1, line, sizeof line);
  strncat(want, line, sizeof want - strlen(want) - 1);
  params_expected(&r, 0, want, sizeof want);
  params_expected(&r, 1, want, sizeof want);
  check(same_str(out, want) && contains(out, "1 saxpy "),
        "--emit-c: the kernel tables say what gpublob_kernel_get reads from the blobs (saxpy, each)",
        "printed %s, the library reads %s", shown(out), want);
  check(contains(out, "\n4 0:0@0:4 by_value 0 - a 0:1@8:8 global_buffer 0 global x"),
        "--emit-c: NAME_params[] and NAME_param_count say saxpy's parameters as gpublob_param_get does (a, x, ...)",
        "printed %s", shown(out));
  check(kernel_line_sane(out, 0) && kernel_line_sane(out ? strchr(out, '\n') + 1 : NULL, 0),
        "--emit-c: an AMD row has the occupancy (0 to 1, a limiter), waves a SIMD and no tool report (-1)", "printed %s",
        shown(out));
  free(out);
  free(b1);
  free(b2);
  /* the same call again: the front answers it from the cache, and writes the same header */
  unlink(h);
  rc = run(argv, &log);
  size_t hn2 = 0;
  unsigned char *second = slurp(h, &hn2);
  check(rc == 0 && contains(log, "time (front)") && first && second && hn == hn2 && !memcmp(first, second, hn),
        "--emit-c: on a cache hit the front writes the same header", "exit %d: %s", rc, shown(log));
  free(log);
  free(first);
  free(second);
  if (!gpublob_mlir_enabled()) {
    skip("--emit-c of MLIR's output", "built without MLIR");
    return;
  }
  const char *mh = tmp_path("mlir_blob.h"), *mout = tmp_path("saxpy.out.mlir"), *mexe = tmp_path("mreader");
  const char *margv[] = {CLI, "-t", "amdgcn:gfx942", "-o", mout, "--emit-c", mh, "examples/saxpy.mlir", NULL};
  rc = run(margv, &log);
  free(log);
  const char *mnames[] = {"saxpy"};
  rc |= build_reader(mh, mnames, 1, mexe);
  const char *mgot = tmp_path("mgot"), *mrargv[] = {mexe, mgot, NULL};
  rc |= run(mrargv, &out);
  size_t mn;
  unsigned char *m = slurp(mout, &mn);
  check_if(m != NULL, rc == 0 && same_bytes(mgot, m, mn) && same_str(out, NO_KERNEL "\n" NO_PARAMS "\n"),
           "--emit-c: MLIR's one output is the array named by the stem (saxpy), with empty kernel and parameter tables",
           "exit %d: %s", rc, shown(out));
  free(out);
  free(m);
}

/* An NVIDIA row: ptxas's report (spill bytes) and the occupancy, as the library's own
** compile of the same file gives them (a cubin records no spills: the report is kept
** with the output, so reading the blob file alone would not say). */
static void test_emit_c_nvptx(void) {
  if (!have_ptxas()) {
    skip("--emit-c for nvptx", "ptxas not found (CUDA)");
    return;
  }
  const char *h = tmp_path("nv_blobs.h"), *dir = tmp_path("emit-nv/"), *exe = tmp_path("nv_reader");
  const char *argv[] = {CLI, "-t", "nvptx:sm_90", "-o", dir, "--emit-c", h, "examples/saxpy_nvptx.ll", NULL};
  char *out = NULL, want[2048] = NO_KERNEL "\n" NO_PARAMS "\n";
  int rc = run(argv, &out);
  free(out);
  out = NULL;
  const char *names[] = {"saxpy_nvptx_nvptx_sm_90"}, *rargv[] = {exe, tmp_path("nv_got"), NULL};
  rc |= build_reader(h, names, 1, exe);
  if (!rc) rc = run(rargv, &out);
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  o.target = "nvptx:sm_90";
  gpublob_result r = {0};
  if (!compile_file(&o, "examples/saxpy_nvptx.ll", GPUBLOB_INPUT_LLVM, &r)) {
    kernels_expected(&r, 0, want, sizeof want);
    params_expected(&r, 0, want, sizeof want);
  }
  gpublob_result_free(&r);
  check(rc == 0 && same_str(out, want) && kernel_line_sane(out, 1),
        "--emit-c: an NVIDIA row has ptxas's spill bytes (0), the occupancy and blocks a SM, and the parameter table, "
        "as the library's compile",
        "exit %d: printed %s, the library %s", rc, shown(out), want);
  free(out);
}

int main(void) {
  if (gpublob_open(&g)) return 1;
  test_targets();
  /* these compile saxpy (LLVM IR, MLIR) for amdgcn, whose expf is ocml's: ROCm's bitcode */
  int rocm = need_rocm("dumps of saxpy for amdgcn: isolated, packs, MLIR, a failing tool, the CLI, --emit-c");
  if (rocm) test_isolate();
  if (rocm) test_pack();
  test_provider();
  if (rocm) test_mlir();
  if (rocm) test_failing_tool();
  test_unwritable();
  test_cache();
  if (rocm) test_cli();
  if (rocm) test_emit_c();
  test_emit_c_nvptx();
  gpublob_close(g);
  return report();
}
