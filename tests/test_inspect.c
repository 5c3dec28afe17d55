/* test_inspect: gpublob inspect FILE... and gpublob_inspect on every kind of file
** gpublob writes (made here by build/gpublob from examples/: an hsaco, an offload
** bundle, SPIR-V, an MLIR module's #gpu.objects; a cubin, a fatbin and PTX where
** CUDA's ptxas is found, else skipped): each entry's target, chip and kernels,
** each kernel's params line as the compile's --verbose printed it; --json equal to
** --metadata's JSON of the same blob, an AMD kernel's params in it; LLVM's
** OffloadBinary as an output per entry; garbage, every prefix of an hsaco (and of an
** OffloadBinary file), lying sizes, a bundle whose entries overlap (4096 over one
** member) and an OffloadBinary entry whose arch is not its blob's own processor a clean
** error (the library's FORMAT or TOOL; the CLI's exit 1 to 127), an arch with the
** blob's processor and a feature (gfx90a:xnack+) the entry's chip; --disasm of examples/saxpy_amdgcn.ll on every AMD chip of the spec equal
** to llvm-objdump-22 -d's instructions kernel by kernel; NVIDIA's --disasm naming
** the tools it misses (skipped where nvdisasm is found); SPIR-V's equal to spirv-dis
** run directly; and the front inspecting with no gpublob-compiler beside it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define CLI "build/gpublob"

/* A file made by the CLI from an example; its path, or NULL (failed: checked). */
static const char *make(const char *name, const char *const *flags, const char *input) {
  const char *out = tmp_path(name);
  const char *argv[32] = {CLI, "--no-cache"};
  int n = 2;
  for (; *flags && n < 28; flags++) argv[n++] = *flags;
  argv[n++] = input;
  argv[n++] = "-o";
  argv[n++] = out;
  argv[n] = NULL;
  char *log = NULL;
  int st = run(argv, &log);
  check(st == 0, name, "gpublob made no %s: %s", name, shown(log));
  free(log);
  return st == 0 ? strdup(out) : NULL;
}

/* inspect's stdout+stderr for files, and its exit status. */
static int inspect(const char *flag, const char *file, char **out) {
  const char *argv[] = {CLI, "inspect", flag ? flag : file, flag ? file : NULL, NULL};
  return (run(argv, out));
}

/* The file's entries, as the CLI prints them: each "FILE: TARGET CHIP SUFFIX" line. */
static void check_entries(const char *what, const char *file, const char *const *want) {
  char *out = NULL;
  int rc = inspect(NULL, file, &out);
  check(rc == 0, what, "inspect exits %d: %s", rc, shown(out));
  for (; *want; want++) {
    char line[512];
    snprintf(line, sizeof line, "%s: %s", file, *want);
    check(contains(out, line), what, "no entry '%s' in: %s", *want, shown(out));
  }
  check(contains(out, "saxpy ("), what, "no kernel line in: %s", shown(out));
  free(out);
}

/* ---- each kind of file ---- */
static const char *hsaco, *bundle, *spv, *mlir_out, *cubin, *fatbin, *ptx;

static void kinds(void) {
  hsaco = make("s.hsaco", (const char *[]){"-t", "amdgcn:gfx90a", NULL}, "examples/saxpy_amdgcn.ll");
  bundle = make("s.hipfb", (const char *[]){"-t", "amdgcn:gfx90a,gfx942", "-f", "pack", NULL}, "examples/saxpy_amdgcn.ll");
  spv = make("s.spv", (const char *[]){"-t", "spirv", NULL}, "examples/saxpy_spirv.ll");
  if (hsaco) check_entries("hsaco", hsaco, (const char *[]){"amdgcn gfx90a .hsaco", NULL});
  if (bundle) check_entries("bundle", bundle, (const char *[]){"amdgcn gfx90a .hsaco", "amdgcn gfx942 .hsaco", NULL});
  char *out = NULL;
  if (spv) {
    int rc = inspect(NULL, spv, &out);
    check(rc == 0 && contains(out, "spirv generic .spv"), "spirv", "exit %d: %s", rc, shown(out));
    free(out);
  }
  if (gpublob_mlir_enabled()) {
    mlir_out = make("s.out.mlir", (const char *[]){"-t", "amdgcn:gfx90a", NULL}, "examples/saxpy.mlir");
    if (mlir_out) check_entries("mlir", mlir_out, (const char *[]){"amdgcn gfx90a .hsaco", NULL});
  } else skip("mlir", "a build without MLIR");
  if (!have_ptxas()) {
    skip("cubin, fatbin, ptx", "no ptxas (CUDA) found");
    return;
  }
  cubin = make("s.cubin", (const char *[]){"-t", "nvptx:sm_80", NULL}, "examples/saxpy_nvptx.ll");
  fatbin = make("s.fatbin", (const char *[]){"-t", "nvptx:sm_80,sm_90", "-f", "pack", NULL}, "examples/saxpy_nvptx.ll");
  ptx = make("s.ptx", (const char *[]){"-t", "nvptx:sm_80", "-f", "asm", NULL}, "examples/saxpy_nvptx.ll");
  if (cubin) check_entries("cubin", cubin, (const char *[]){"nvptx sm_80 .cubin", NULL});
  if (fatbin) check_entries("fatbin", fatbin, (const char *[]){"nvptx sm_80 .cubin", "nvptx sm_90 .cubin", NULL});
  if (ptx) {
    int rc = inspect(NULL, ptx, &out);
    check(rc == 0 && contains(out, "nvptx sm_80 .ptx"), "ptx", "exit %d: %s", rc, shown(out));
    free(out);
  }
}

/* ---- each kernel's parameters: --verbose's line, and in --json ---- */
/* inspect's text of an AMD blob has each kernel's "params:" line as the compile's
** --verbose printed it; its --json a "params" list with each one's offset, size and kind. */
static void params_shown(void) {
  const char *blob = tmp_path("p.hsaco");
  const char *argv[] = {CLI, "--no-cache", "--verbose", "-t", "amdgcn:gfx90a", "examples/saxpy_amdgcn.ll", "-o", blob, NULL};
  char *log = NULL, *out = NULL, *json = NULL;
  check(run(argv, &log) == 0, "params: compile --verbose", "%s", shown(log));
  const char *line = log ? strstr(log, "gpublob: saxpy params: ") : NULL;
  char want[1024] = "";
  if (line) snprintf(want, sizeof want, "  %.*s", (int)strcspn(line + 9, "\n"), line + 9);
  int rc = inspect(NULL, blob, &out);
  check(rc == 0 && *want && contains(out, want) && contains(want, "@8:8 global_buffer"),
        "inspect prints each kernel's params as --verbose does", "exit %d, want '%s' in:\n%s", rc, want, shown(out));
  rc = inspect("--json", blob, &json);
  check(rc == 0 && contains(json, "\"params\": [{\"index\": 0, \"offset\": 0, \"size\": 4, \"kind\": \"by_value\"") &&
            contains(json, "{\"index\": 1, \"offset\": 8, \"size\": 8, \"kind\": \"global_buffer\""),
        "inspect --json has an AMD kernel's params", "exit %d: %s", rc, shown(json));
  free(log), free(out), free(json);
}

/* ---- --json is --metadata's JSON ---- */
static void json_same(const char *what, const char *target, const char *input) {
  const char *blob = tmp_path("j.blob"), *meta = tmp_path("j.json");
  const char *argv[] = {CLI, "--no-cache", "-t", target, input, "-o", blob, "--metadata", meta, NULL};
  char *log = NULL, *out = NULL;
  int st = run(argv, &log);
  check(st == 0, what, "compile: %s", shown(log));
  size_t n;
  char *want = (char *)slurp(meta, &n);
  const char *iv[] = {CLI, "inspect", "--json", blob, NULL};
  int rc = (run(iv, &out));
  check(rc == 0 && same_str(out, want), what, "inspect --json (exit %d):\n%s\n--metadata:\n%s", rc, shown(out), shown(want));
  free(log);
  free(out);
  free(want);
}

/* ---- hostile files ---- */
/* The library on bytes: FORMAT or TOOL (or PARSE), never another code, nothing left. */
static int lib_code(gpublob *g, const unsigned char *p, size_t n) {
  gpublob_result r;
  gpublob_input in = {GPUBLOB_INPUT_AUTO, p, n, NULL, "hostile"};
  int rc = gpublob_inspect(g, &in, &r);
  int empty = rc ? r.count == 0 && r.outputs == NULL : 1;
  for (size_t i = 0; !rc && i < r.count; i++) { /* and its kernels read cleanly */
    size_t k = 0;
    int krc = gpublob_kernel_count(g, &r, i, &k);
    if (krc && krc != GPUBLOB_FORMAT && krc != GPUBLOB_TOOL) rc = -krc;
  }
  gpublob_result_free(&r);
  return empty ? rc : -100;
}

static void cli_clean(const char *what, const unsigned char *p, size_t n) {
  const char *f = tmp_path("hostile.bin");
  spill(f, p, n);
  char *out = NULL;
  int rc = inspect(NULL, f, &out);
  check(rc >= 1 && rc < 128 && contains(out, "gpublob: error: "), what, "exit %d: %s", rc, shown(out));
  free(out);
}

/* An offload bundle of 4096 entries, every one the same n bytes of the hsaco h (each
** copied, a member the size of the file each: 4096 times its bytes): TOOL at its
** second entry, whose bytes overlap the first's, in the library and the CLI. */
static void overlapping_bundle(gpublob *g, const unsigned char *h, size_t n) {
  static const char magic[] = "__CLANG_OFFLOAD_BUNDLE__", id[] = "hipv4-amdgcn-amd-amdhsa--gfx90a";
  enum { ENTRIES = 4096, ENTRY = 24 + sizeof id - 1 };
  size_t head = sizeof magic - 1 + 8 + (size_t)ENTRIES * ENTRY, size = head + n;
  unsigned char *b = malloc(size);
  memcpy(b, magic, sizeof magic - 1);
  unsigned char *at = b + sizeof magic - 1;
  uint64_t fields[3] = {ENTRIES, head, n};
  for (int i = 0; i < 8; i++) at[i] = (unsigned char)(fields[0] >> 8 * i);
  at += 8;
  for (size_t e = 0; e < ENTRIES; e++, at += ENTRY) {
    for (int i = 0; i < 8; i++)
      at[i] = (unsigned char)(fields[1] >> 8 * i), at[8 + i] = (unsigned char)(fields[2] >> 8 * i),
      at[16 + i] = (unsigned char)((uint64_t)(sizeof id - 1) >> 8 * i);
    memcpy(at + 24, id, sizeof id - 1);
  }
  memcpy(b + head, h, n);
  int rc = lib_code(g, b, size);
  check(rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), "entry 1's bytes") &&
        contains(gpublob_error_message(g), "overlap"),
        "a bundle of 4096 entries over one member: TOOL at the second (overlapping) entry", "%d: %s", rc,
        gpublob_error_message(g));
  cli_clean("a bundle of 4096 entries over one member: the CLI", b, size);
  free(b);
}

/* A blob's tool name with a terminal escape in it (.comment's "LLD" made ESC "[31m"):
** inspect shows it with '?' for the control byte, in the library's output and the CLI's
** line, and moves no terminal. */
static void escape_in_tool(void) {
  size_t n = 0;
  unsigned char *h = hsaco ? slurp(hsaco, &n) : NULL;
  unsigned char *at = NULL;
  for (size_t i = 0; h && i + 3 <= n && !at; i++)
    if (!memcmp(h + i, "LLD", 3)) at = h + i;
  if (!at) {
    free(h);
    return skip("a tool name with an escape", "no hsaco with LLD's .comment");
  }
  at[0] = 0x1b, at[1] = '[', at[2] = '1';
  const char *path = tmp_path("escape.hsaco");
  spill(path, h, n);
  free(h);
  char *out = NULL;
  int rc = inspect(NULL, path, &out);
  check(rc == 0 && contains(out, "?[1 ") && !strchr(out, 0x1b),
        "a blob's tool name with an ESC: shown with '?', no control byte printed", "exit %d: %s", rc, shown(out));
  free(out);
}

static void hostile(void) {
  gpublob *g;
  if (gpublob_open(&g)) return check(0, "open", "no handle");
  unsigned char garbage[4096];
  for (size_t i = 0; i < sizeof garbage; i++) garbage[i] = (unsigned char)(i * 2654435761u >> 13);
  check(lib_code(g, garbage, sizeof garbage) == GPUBLOB_FORMAT, "garbage: FORMAT", "%s", gpublob_error_message(g));
  cli_clean("garbage: the CLI", garbage, sizeof garbage);
  check(lib_code(g, (const unsigned char *)"", 0) == GPUBLOB_FORMAT, "empty: FORMAT", "%s", gpublob_error_message(g));
  size_t n = 0;
  unsigned char *h = hsaco ? slurp(hsaco, &n) : NULL;
  size_t n0 = n;
  if (h) {
    size_t bad = 0, first = 0;
    for (size_t len = 0; len < n; len++) { /* every prefix */
      int rc = lib_code(g, h, len);
      if (rc != GPUBLOB_FORMAT && rc != GPUBLOB_TOOL && !bad++) first = len;
    }
    check(bad == 0, "every prefix of an hsaco: FORMAT or TOOL", "%zu of %zu prefixes not (first %zu bytes)", bad, n, first);
    for (size_t len = 1; len < n; len += n / 7) cli_clean("an hsaco cut short: the CLI", h, len);
    unsigned char *lie = malloc(n);
    memcpy(lie, h, n);
    memset(lie + 0x28, 0x7f, 8); /* e_shoff past the end */
    check(lib_code(g, lie, n) == GPUBLOB_TOOL, "an hsaco whose section table lies: TOOL", "%s", gpublob_error_message(g));
    cli_clean("an hsaco whose section table lies: the CLI", lie, n);
    free(lie);
  } else check(0, "hsaco", "none made");
  unsigned char *b = bundle ? slurp(bundle, &n) : NULL;
  if (b) {
    size_t second = 32 + 24 + (size_t)b[32 + 16]; /* past the host entry and its id */
    memset(b + second + 8, 0x7f, 8); /* the second entry's size: far past the end */
    check(lib_code(g, b, n) == GPUBLOB_TOOL, "a bundle whose entry lies: TOOL", "%s", gpublob_error_message(g));
    cli_clean("a bundle whose entry lies: the CLI", b, n);
    for (size_t len = 24; len < n; len += 997) check(lib_code(g, b, len) == GPUBLOB_TOOL, "a bundle cut short: TOOL", "%zu bytes: %s", len, gpublob_error_message(g));
  }
  free(b);
  if (h) overlapping_bundle(g, h, n0);
  unsigned char *f = fatbin ? slurp(fatbin, &n) : NULL;
  if (f) {
    memset(f + 8, 0x7f, 8); /* the entries' size */
    check(lib_code(g, f, n) == GPUBLOB_TOOL, "a fatbin whose size lies: TOOL", "%s", gpublob_error_message(g));
    cli_clean("a fatbin whose size lies: the CLI", f, n);
  }
  free(f);
  size_t mn = 0;
  unsigned char *m = mlir_out ? slurp(mlir_out, &mn) : NULL;
  for (size_t len = 0; m && len < mn; len += 97) {
    int rc = lib_code(g, m, len);
    if (rc != GPUBLOB_FORMAT && rc != GPUBLOB_TOOL && rc != GPUBLOB_PARSE && rc != GPUBLOB_OK)
      check(0, "MLIR cut short", "%zu bytes: %d %s", len, rc, gpublob_error_message(g));
  }
  free(m);
  gpublob_input in = {GPUBLOB_INPUT_LLVM, garbage, 4, NULL, NULL};
  gpublob_result r;
  check(gpublob_inspect(g, &in, &r) == GPUBLOB_MISUSE, "kind LLVM: MISUSE", "%s", gpublob_error_message(g));
  check(gpublob_inspect(g, NULL, &r) == GPUBLOB_MISUSE, "NULL input: MISUSE", "%s", gpublob_error_message(g));
  free(h);
  gpublob_close(g);
}

/* ---- disassembly ---- */
/* The instructions of text's kernel name: after its "<name>:" line, each line up to the
** next blank line or label, without a "//" comment, blanks squeezed. */
static char *kernel_insns(const char *text, const char *name) {
  char label[512];
  snprintf(label, sizeof label, "<%s>:\n", name);
  const char *p = text ? strstr(text, label) : NULL;
  if (!p) return NULL;
  p += strlen(label);
  size_t cap = strlen(p) + 1, n = 0;
  char *out = malloc(cap);
  for (const char *line = p; *line && *line != '\n' && *line != '<';) {
    const char *nl = strchr(line, '\n'), *end = nl ? nl : line + strlen(line);
    const char *cmt = strstr(line, "//");
    if (cmt && cmt < end) end = cmt;
    int blank = 1;
    for (const char *c = line; c < end; c++) {
      int sp = *c == ' ' || *c == '\t';
      if (sp && !blank) out[n++] = ' ';
      if (!sp) out[n++] = *c;
      blank = sp;
    }
    while (n && out[n - 1] == ' ') n--;
    out[n++] = '\n';
    if (!nl) break;
    line = nl + 1;
  }
  out[n] = 0;
  return out;
}

/* The kernel's symbol's range, as llvm-nm-22 -S gives it ("VALUE SIZE T NAME"), as
** llvm-objdump's --start-address and --stop-address: objdump's listing of a symbol
** runs on to the next one, over the section's padding (s_code_end) past its end. */
static void symbol_range(const char *file, const char *name, char *start, char *stop, size_t size) {
  char *out = NULL;
  run((const char *[]){LLVM_BINDIR "/llvm-nm", "-S", file, NULL}, &out);
  for (const char *line = out; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
    unsigned long long value, bytes;
    char nm[256];
    if (sscanf(line, "%llx %llx %*s %255s", &value, &bytes, nm) == 3 && !strcmp(nm, name)) {
      snprintf(start, size, "--start-address=0x%llx", value);
      snprintf(stop, size, "--stop-address=0x%llx", value + bytes);
    }
  }
  free(out);
}

/* Every AMD chip of the spec: saxpy's --disasm equals llvm-objdump-22 -d's over its
** symbol's range, instruction by instruction (mnemonics and operands). */
static void amd_disasm(void) {
  if (!need_rocm("AMD --disasm")) return;
  gpublob_target_info t;
  char chips[8192] = "amdgcn:";
  for (int i = 0; i < gpublob_target_count(); i++)
    if (!gpublob_target_get(i, &t, sizeof t) && !strcmp(t.name, "amdgcn"))
      for (const char *c = t.chips; *c;) {
        size_t n = strcspn(c, " ");
        snprintf(chips + strlen(chips), sizeof chips - strlen(chips), "%s%.*s", chips[7] ? "," : "", (int)n, c);
        c += n + (c[n] == ' ');
      }
  const char *dir = tmp_path("amd/");
  const char *argv[] = {CLI, "--no-cache", "-t", chips, "examples/saxpy_amdgcn.ll", "-o", dir, NULL};
  char *log = NULL;
  check(run(argv, &log) == 0, "saxpy on every AMD chip", "%s", shown(log));
  free(log);
  int compared = 0;
  for (const char *c = chips + 7; *c;) {
    size_t n = strcspn(c, ",");
    char file[1024], name[128];
    snprintf(file, sizeof file, "%ssaxpy_amdgcn.amdgcn.%.*s.hsaco", dir, (int)n, c);
    snprintf(name, sizeof name, "--disasm = llvm-objdump on %.*s", (int)n, c);
    c += n + (c[n] == ',');
    char *ours = NULL, *theirs = NULL;
    int rc = inspect("--disasm", file, &ours);
    char start[64] = "--start-address=0", stop[64] = "--stop-address=0";
    symbol_range(file, "saxpy", start, stop, sizeof start);
    const char *od[] = {LLVM_BINDIR "/llvm-objdump", "-d", "--no-show-raw-insn", "--no-leading-addr", start, stop, file, NULL};
    run(od, &theirs);
    char *a = kernel_insns(ours, "saxpy"), *b = kernel_insns(theirs, "saxpy");
    if (!b && contains(theirs, "not yet supported")) { /* gfx6, gfx7: LLVM reads them not */
      check(rc == 0 && contains(ours, "disasm_chips"), name, "not refused cleanly: exit %d: %s", rc, shown(ours));
      skip(name, "llvm-objdump-22 does not disassemble it either");
      free(ours), free(theirs);
      continue;
    }
    check(rc == 0 && a && b && *b && !strcmp(a, b), name, "exit %d\nours:\n%s\nllvm-objdump:\n%s", rc, shown(a), shown(b));
    compared += a && b && !strcmp(a, b);
    free(a), free(b), free(ours), free(theirs);
  }
  check(compared > 30, "AMD chips compared", "%d", compared);
}

static void other_disasm(void) {
  char *out = NULL, *want = NULL;
  if (spv && have_program("/usr/bin/spirv-dis")) {
    int rc = inspect("--disasm", spv, &out);
    run((const char *[]){"spirv-dis", spv, NULL}, &want);
    check(rc == 0 && want && contains(out, want), "SPIR-V --disasm = spirv-dis", "exit %d\n%s\nspirv-dis:\n%s", rc, shown(out), shown(want));
    free(out), free(want);
  } else skip("SPIR-V --disasm", "no spirv-dis");
  if (!cubin) return skip("NVIDIA --disasm", "no cubin (no ptxas)");
  int rc = inspect("--disasm", cubin, &out);
  if (contains(out, "no disassembly")) {
    check(rc == 0 && contains(out, "nvdisasm") && contains(out, "cuobjdump"), "NVIDIA --disasm names what is missing",
          "exit %d: %s", rc, shown(out));
    skip("NVIDIA SASS", "neither nvdisasm nor cuobjdump is found");
  } else check(rc == 0 && contains(out, "saxpy"), "NVIDIA --disasm: SASS", "exit %d: %s", rc, shown(out));
  free(out);
}

/* An interrupted --disasm: the disassembler (a stand-in for spirv-dis, first on PATH,
** that waits) dies with gpublob, and gpublob's temporary copy of the blob (under
** $TMPDIR) is removed; the exit is INTERRUPTED's, not a signal's. */
static void disasm_interrupted(void) {
  if (!spv) return skip("an interrupted --disasm", "no .spv blob");
  const char *bin = tmp_path("slowdis"), *tmpdir = tmp_path("disasm-tmp");
  char script[4400], pidfile[4400], body[9000], path[9000];
  mkdir(bin, 0700);
  mkdir(tmpdir, 0700);
  snprintf(script, sizeof script, "%s/spirv-dis", bin);
  snprintf(pidfile, sizeof pidfile, "%s/pid", bin);
  int n = snprintf(body, sizeof body, "#!/bin/sh\necho $$ > '%s.part' && mv '%s.part' '%s'\nexec sleep 30\n", pidfile,
                   pidfile, pidfile);
  spill(script, body, (size_t)n);
  chmod(script, 0755);
  snprintf(path, sizeof path, "%s:%s", bin, getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
  pid_t pid = fork();
  if (pid == 0) {
    setenv("PATH", path, 1);
    setenv("TMPDIR", tmpdir, 1);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execl(CLI, CLI, "inspect", "--disasm", spv, (char *)NULL);
    _exit(127);
  }
  long dis = 0;
  for (int i = 0; i < 1000 && !dis; i++) { /* up to 10 s for the stand-in to start */
    size_t sz;
    char *text = (char *)slurp(pidfile, &sz);
    dis = text ? strtol(text, NULL, 10) : 0;
    free(text);
    if (!dis) usleep(10000);
  }
  int copies = leftovers(tmpdir, "gpublob-disasm-"), st = 0;
  kill(pid, SIGTERM);
  waitpid(pid, &st, 0);
  int gone = 0;
  for (int i = 0; i < 300 && dis > 0 && !gone; i++) { /* the kernel's SIGKILL to it is not at once */
    gone = kill((pid_t)dis, 0) && errno == ESRCH;
    if (!gone) usleep(10000);
  }
  check(dis > 0 && copies == 1, "--disasm: the disassembler runs on a copy of the blob under $TMPDIR", "pid %ld, %d copies",
        dis, copies);
  check(exit_code(st) == 10 + GPUBLOB_INTERRUPTED, "--disasm interrupted (SIGTERM): INTERRUPTED's exit, not a signal's",
        "status %d", exit_code(st));
  check(dis > 0 && gone, "--disasm interrupted: the disassembler dies with gpublob", "pid %ld still there", dis);
  check(leftovers(tmpdir, "gpublob-") == 0, "--disasm interrupted: the blob's temporary copy is removed", "%d left",
        leftovers(tmpdir, "gpublob-"));
  if (dis > 0 && !gone) kill((pid_t)dis, SIGKILL);
}

/* ---- LLVM's OffloadBinary: an output per entry ---- */
static const char *container; /* amdgcn gfx90a, gfx942:xnack+ and spirv, two -f offload files one after the other */

/* The file's bytes appended to f's; 0 when unread. */
static int append(FILE *f, const char *file) {
  size_t n = 0;
  unsigned char *p = file ? slurp(file, &n) : NULL;
  int ok = p && fwrite(p, 1, n, f) == n;
  free(p);
  return ok;
}

/* Entry i of the container's library result is the blob of file byte for byte, of chip. */
static void entry_is(const gpublob_result *r, size_t i, const char *file, const char *target, const char *chip) {
  char name[128];
  snprintf(name, sizeof name, "offload entry %zu: %s %s = -f bin's blob", i, target, chip);
  size_t n = 0;
  unsigned char *want = file ? slurp(file, &n) : NULL;
  int ok = want && i < r->count && !strcmp(r->outputs[i].target, target) && !strcmp(r->outputs[i].chip, chip) &&
           r->outputs[i].blob.size == n && !memcmp(r->outputs[i].blob.data, want, n);
  check(ok, name, "%zu entries; entry: %s %s, %zu bytes (want %zu)", r->count, i < r->count ? r->outputs[i].target : "-",
        i < r->count ? r->outputs[i].chip : "-", i < r->count ? r->outputs[i].blob.size : 0, n);
  free(want);
}

/* The container's --disasm of its gfx942:xnack+ entry = llvm-objdump-22 -d's over the
** hsaco llvm-offload-binary-22 extracts from it. */
static void offload_disasm(void) {
  const char *hs = tmp_path("x942.hsaco");
  char image[1024];
  snprintf(image, sizeof image, "--image=file=%s,triple=amdgcn-amd-amdhsa,arch=gfx942:xnack+", hs);
  char *log = NULL, *ours = NULL, *theirs = NULL;
  int st = run((const char *[]){LLVM_BINDIR "/llvm-offload-binary", container, image, NULL}, &log);
  check(st == 0 && exists(hs), "llvm-offload-binary-22 extracts the gfx942:xnack+ entry", "exit %d: %s", st, shown(log));
  int rc = inspect("--disasm", container, &ours);
  char *at = ours ? strstr(ours, "amdgcn gfx942:xnack+ .hsaco") : NULL, *next = at ? strstr(at, container) : NULL;
  if (next) *next = 0; /* up to the next entry's line */
  char start[64] = "--start-address=0", stop[64] = "--stop-address=0";
  symbol_range(hs, "saxpy", start, stop, sizeof start);
  run((const char *[]){LLVM_BINDIR "/llvm-objdump", "-d", "--no-show-raw-insn", "--no-leading-addr", start, stop, hs, NULL},
      &theirs);
  char *a = kernel_insns(at, "saxpy"), *b = kernel_insns(theirs, "saxpy");
  check(rc == 0 && a && b && *b && !strcmp(a, b), "offload --disasm of gfx942:xnack+ = llvm-objdump-22's",
        "exit %d\nours:\n%s\nllvm-objdump:\n%s", rc, shown(a), shown(b));
  free(a), free(b), free(log), free(ours), free(theirs);
}

/* A copy of the container with the u64 at off set to v: the library says TOOL, the CLI a clean error. */
static void offload_lie(gpublob *g, const unsigned char *p, size_t n, size_t off, uint64_t v, const char *what) {
  unsigned char *lie = malloc(n);
  memcpy(lie, p, n);
  for (int i = 0; i < 8; i++) lie[off + i] = (unsigned char)(v >> 8 * i);
  check(lib_code(g, lie, n) == GPUBLOB_TOOL, what, "%s", gpublob_error_message(g));
  cli_clean(what, lie, n);
  free(lie);
}

/* Whether a binary of the container (p, n bytes) ends at len: each binary's size is
** the u64 at its byte 8. */
static int binary_ends(const unsigned char *p, size_t n, size_t len) {
  for (size_t at = 0, size; at + 16 <= n && len > at; at += size) {
    size = 0;
    for (int i = 0; i < 8; i++) size |= (size_t)p[at + 8 + i] << 8 * i;
    if (!size || at + size == len) return size != 0;
  }
  return 0;
}

/* Every prefix (OK only where a binary ends: the file of those before it), and each field that lies: header size, entry offset, image offset and
** size, the strings' count; and a bin entry that is no blob of its target. */
static void offload_hostile(gpublob *g) {
  size_t n = 0, bad = 0, first = 0;
  unsigned char *p = slurp(container, &n);
  if (!p) return check(0, "offload hostile", "unread");
  for (size_t len = 0; len < n; len++) {
    int rc = lib_code(g, p, len);
    if (rc != GPUBLOB_FORMAT && rc != GPUBLOB_TOOL && !(rc == GPUBLOB_OK && binary_ends(p, n, len)) && !bad++)
      first = len;
  }
  check(bad == 0, "every prefix of an offload container: FORMAT or TOOL (OK where a binary ends)",
        "%zu of %zu (first %zu bytes)", bad, n, first);
  offload_lie(g, p, n, 8, (uint64_t)1 << 40, "an offload binary whose size lies: TOOL");
  offload_lie(g, p, n, 16, n, "an offload binary whose entry lies outside it: TOOL");
  offload_lie(g, p, n, 32 + 24, (uint64_t)1 << 62, "an offload entry whose image lies outside it: TOOL");
  offload_lie(g, p, n, 32 + 32, (uint64_t)-1, "an offload entry whose image size lies: TOOL");
  offload_lie(g, p, n, 32 + 16, 1000000000, "an offload entry of a billion strings: TOOL");
  size_t image = (size_t)(p[32 + 24] | p[32 + 25] << 8); /* the first image's offset */
  unsigned char *junk = malloc(n);
  memcpy(junk, p, n);
  memset(junk + image, 0x5a, 4); /* its ELF magic gone */
  check(lib_code(g, junk, n) == GPUBLOB_TOOL && contains(gpublob_error_message(g), "no .hsaco blob"),
        "an offload entry that is no blob of its target: TOOL", "%s", gpublob_error_message(g));
  free(junk);
  free(p);
}

/* The blob file wrapped by llvm-offload-binary-22 as the one entry of triple and arch,
** into scratch's name: its path, or NULL (checked).  The tool takes the image's kind
** from its file name: an hsaco is copied to a ".o" (LLVM's object, as -f offload's). */
static const char *wrap(const char *file, const char *triple, const char *arch, const char *name) {
  const char *out = tmp_path(name), *image_file = file;
  size_t len = strlen(file), n = 0;
  if (len > 6 && !strcmp(file + len - 6, ".hsaco")) {
    unsigned char *p = slurp(file, &n);
    image_file = tmp_path("wrapped.o");
    if (!p || spill(image_file, p, n)) image_file = file;
    free(p);
  }
  char image[1024];
  snprintf(image, sizeof image, "--image=file=%s,triple=%s,arch=%s", image_file, triple, arch);
  char *log = NULL;
  int st = run((const char *[]){LLVM_BINDIR "/llvm-offload-binary", "-o", out, image, NULL}, &log);
  check(st == 0 && exists(out), "llvm-offload-binary-22 wraps a blob", "%s as %s: exit %d: %s", file, arch, st, shown(log));
  free(log);
  return st == 0 ? out : NULL;
}

/* An entry whose arch names another processor than its blob's own (an sm_80 cubin
** labelled sm_90, a gfx90a hsaco labelled gfx1100) is TOOL naming both, in inspect and
** in gpublob_kernel_count of the container; an arch of the blob's own processor with a
** target-id feature (gfx90a:xnack+) is the entry's chip. */
static void offload_arch(gpublob *g) {
  struct { const char *file, *triple, *arch, *own, *target; } lie[] = {
      {hsaco, "amdgcn-amd-amdhsa", "gfx1100", "gfx90a", "amdgcn"},
      {cubin, "nvptx64-nvidia-cuda", "sm_90", "sm_80", "nvptx"},
  };
  char what[300];
  for (size_t i = 0; i < sizeof lie / sizeof *lie; i++) {
    if (!lie[i].file) continue; /* no cubin without ptxas: skipped with it */
    const char *f = wrap(lie[i].file, lie[i].triple, lie[i].arch, "lie.offload");
    size_t n = 0;
    unsigned char *p = f ? slurp(f, &n) : NULL;
    if (!p) continue;
    snprintf(what, sizeof what, "an offload entry of a %s blob labelled arch %s: TOOL naming both", lie[i].own,
             lie[i].arch);
    int rc = lib_code(g, p, n);
    const char *msg = gpublob_error_message(g);
    check(rc == GPUBLOB_TOOL && contains(msg, lie[i].arch) && contains(msg, lie[i].own), what, "%d: %s", rc, msg);
    cli_clean(what, p, n);
    gpublob_output o = {{p, n, ".offload"}, lie[i].target, lie[i].arch, ""};
    gpublob_result r = {&o, 1};
    size_t k = 0;
    rc = gpublob_kernel_count(g, &r, 0, &k);
    snprintf(what, sizeof what, "gpublob_kernel_count of a container whose %s entry says %s: TOOL", lie[i].own,
             lie[i].arch);
    check(rc == GPUBLOB_TOOL && contains(gpublob_error_message(g), lie[i].own), what, "%d: %s", rc,
          gpublob_error_message(g));
    free(p);
  }
  const char *f = hsaco ? wrap(hsaco, "amdgcn-amd-amdhsa", "gfx90a:xnack+", "xnack.offload") : NULL;
  if (f) check_entries("an offload entry of a gfx90a hsaco labelled gfx90a:xnack+: its chip", f,
                       (const char *[]){"amdgcn gfx90a:xnack+ .hsaco", NULL});
}

/* Targets whose blobs share a magic (SPIR-V's: spirv, xevm, spirv_env): an xevm
** container's entry is read as xevm's, under its arch, not refused as no spirv blob. */
static void offload_shared_magic(void) {
  char *x = (char *)make("s.xevm.offload", (const char *[]){"-t", "xevm:pvc", "-f", "offload", NULL},
                         "examples/saxpy_spirv.ll");
  char *out = NULL;
  int rc = x ? inspect(NULL, x, &out) : -1;
  char want[4400];
  snprintf(want, sizeof want, "%s: xevm pvc .spv", x ? x : "");
  check(rc == 0 && contains(out, want), "offload: an xevm entry (SPIR-V's magic, which spirv's blobs have too) is xevm's",
        "exit %d: %s", rc, shown(out));
  free(out);
  free(x);
}

static void offload(void) {
  char *amd = (char *)make("s.amd.offload", (const char *[]){"-t", "amdgcn:gfx90a,gfx942:xnack+", "-f", "offload", NULL},
                         "examples/saxpy_amdgcn.ll");
  char *sp = (char *)make("s.spv.offload", (const char *[]){"-t", "spirv", "-f", "offload", NULL}, "examples/saxpy_spirv.ll");
  char *x942 = (char *)make("s942.hsaco", (const char *[]){"-t", "amdgcn:gfx942:xnack+", NULL}, "examples/saxpy_amdgcn.ll");
  const char *path = tmp_path("all.offload");
  FILE *f = fopen(path, "wb");
  int ok = f && append(f, amd) && append(f, sp);
  if (f) fclose(f);
  free(amd), free(sp);
  check(ok, "an offload file of three entries", "not written");
  if (!ok) {
    free(x942);
    return;
  }
  container = strdup(path);
  check_entries("offload", container, (const char *[]){"amdgcn gfx90a .hsaco", "amdgcn gfx942:xnack+ .hsaco",
                                                       "spirv generic .spv", NULL});
  gpublob *g;
  if (gpublob_open(&g)) {
    free(x942);
    return check(0, "open", "no handle");
  }
  gpublob_result r = {0};
  gpublob_input in = {GPUBLOB_INPUT_AUTO, NULL, 0, container, NULL};
  int rc = gpublob_inspect(g, &in, &r);
  check(rc == 0 && r.count == 3, "gpublob_inspect: an output per offload entry", "%d, %zu outputs: %s", rc, r.count,
        gpublob_error_message(g));
  entry_is(&r, 0, hsaco, "amdgcn", "gfx90a");
  entry_is(&r, 1, x942, "amdgcn", "gfx942:xnack+");
  entry_is(&r, 2, spv, "spirv", "generic");
  free(x942);
  gpublob_kernel_info k;
  gpublob_param_info a;
  rc = r.count > 1 ? gpublob_kernel_get(g, &r, 1, 0, &k, sizeof k) : -1;
  check(rc == 0 && !strcmp(k.name, "saxpy") && !strcmp(k.chip, "gfx942:xnack+"), "the gfx942:xnack+ entry's kernel",
        "%d: %s", rc, gpublob_error_message(g));
  rc = r.count > 1 ? gpublob_param_get(g, &r, 1, 0, 1, &a, sizeof a) : -1;
  check(rc == 0 && a.offset == 8 && a.size == 8, "the gfx942:xnack+ entry's kernel's second parameter", "%d: %s", rc,
        gpublob_error_message(g));
  gpublob_result_free(&r);
  if (need_rocm("offload --disasm")) offload_disasm();
  offload_hostile(g);
  offload_arch(g);
  gpublob_close(g);
  if (!have_ptxas()) return skip("offload: NVIDIA entries", "no ptxas (CUDA) found");
  char *nv = (char *)make("s.nv.offload", (const char *[]){"-t", "nvptx:sm_80,sm_90", "--offload-asm", "-f", "offload", NULL},
                        "examples/saxpy_nvptx.ll");
  if (nv) check_entries("offload: NVIDIA", nv, (const char *[]){"nvptx sm_80 .cubin", "nvptx sm_80 .ptx",
                                                                 "nvptx sm_90 .cubin", "nvptx sm_90 .ptx", NULL});
  free(nv);
}

/* ---- the front alone: inspect never starts the compiler ---- */
static void front_alone(void) {
  if (!hsaco) return;
  const char *alone = tmp_path("alone-gpublob");
  size_t n;
  unsigned char *exe = slurp(CLI, &n);
  spill(alone, exe, n);
  free(exe);
  chmod(alone, 0755);
  char *out = NULL;
  int rc = (run((const char *[]){alone, "inspect", hsaco, NULL}, &out));
  check(rc == 0 && contains(out, "amdgcn gfx90a .hsaco"), "the front inspects without gpublob-compiler", "exit %d: %s",
        rc, shown(out));
  free(out);
  rc = (run((const char *[]){CLI, "inspect", "--bogus", hsaco, NULL}, &out));
  check(rc == 2, "an unknown inspect flag: usage error", "exit %d: %s", rc, shown(out));
  free(out);
  rc = (run((const char *[]){CLI, "inspect", NULL}, &out));
  check(rc == 2, "inspect without a file: usage error", "exit %d: %s", rc, shown(out));
  free(out);
}

int main(void) {
  kinds();
  json_same("--json = --metadata (hsaco)", "amdgcn:gfx90a", "examples/saxpy_amdgcn.ll");
  json_same("--json = --metadata (SPIR-V)", "spirv", "examples/saxpy_spirv.ll");
  params_shown();
  hostile();
  escape_in_tool();
  offload();
  offload_shared_magic();
  front_alone();
  other_disasm();
  disasm_interrupted();
  amd_disasm();
  return report();
}
