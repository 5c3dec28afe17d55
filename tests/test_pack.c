#define _GNU_SOURCE /* setenv, symlink */
/* test_pack: -f fatbin (GPUBLOB_FORMAT_PACK) for amdgcn: a clang offload bundle, as
** clang -x hip --offload-arch=... makes it for hipModuleLoadData.  The header read
** back field by field (the magic, an empty host entry first, an entry per chip in
** the order asked, offsets at 4096); each entry the hsaco a bin compile gives;
** clang-offload-bundler's -list and -unbundle on it, each unbundled hsaco's chip by
** llvm-readelf and its code by llvm-objdump; the in-process writer (offload_bundle,
** the default) byte for byte what clang-offload-bundler makes of the same hsacos,
** run by hand as clang runs it and as --tool-mode program; a pack tool that is
** missing, fails or writes garbage (NOTOOL, TOOL, nothing left); the cache; the
** CLI's .hipfb.  The kernel is a plain store: no device library, so gfx942 and
** gfx1100 compile too. */
#include <dirent.h>
#include <elf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#define BUNDLER LLVM_BINDIR "/clang-offload-bundler"
#define OBJDUMP LLVM_BINDIR "/llvm-objdump"
#define CLI "build/gpublob"
#define MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define HOST "host-x86_64-unknown-linux-gnu-"
#define HIP "hipv4-amdgcn-amd-amdhsa--"

static const char kernel_ll[] = "target triple = \"amdgcn-amd-amdhsa\"\n"
                                "define amdgpu_kernel void @store(ptr addrspace(1) %p) {\n"
                                "  store i32 42, ptr addrspace(1) %p\n"
                                "  ret void\n"
                                "}\n";

static gpublob *g;
static char tmpdir[4200]; /* the TMPDIR of every compile: gpublob's private directories */

/* ---- compiling ---- */
static gpublob_options pack_options(const char *target, int format, int tool_mode) {
  return (gpublob_options){.version = GPUBLOB_OPTIONS_VERSION, .target = target, .format = format,
                           .tool_mode = tool_mode};
}

static int compile(const gpublob_options *o, gpublob_result *r) {
  gpublob_input in = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, "store.ll"};
  int rc = gpublob_compile(g, o, &in, r);
  if (rc) printf("  (%s)\n", gpublob_error_message(g));
  return rc;
}

/* ---- reading a bundle's header, without gpublob's writer ---- */
typedef struct entry {
  uint64_t offset, size;
  char id[128];
} entry;

static uint64_t le64(const unsigned char *p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | p[i];
  return v;
}

/* The entries of an uncompressed bundle, or -1 when its header does not parse. */
static int read_entries(const unsigned char *d, size_t n, entry *e, int max) {
  if (n < 32 || memcmp(d, MAGIC, 24)) return -1;
  uint64_t count = le64(d + 24), at = 32;
  if (count > (uint64_t)max) return -1;
  for (uint64_t i = 0; i < count; i++) {
    if (at + 24 > n) return -1;
    e[i].offset = le64(d + at);
    e[i].size = le64(d + at + 8);
    uint64_t len = le64(d + at + 16);
    if (len >= sizeof e[i].id || at + 24 + len > n) return -1;
    memcpy(e[i].id, d + at + 24, len);
    e[i].id[len] = 0;
    at += 24 + len;
    if (e[i].offset > n || e[i].size > n - e[i].offset) return -1;
  }
  return (int)count;
}

/* Every byte outside the header and the entries is zero. */
static int gaps_zero(const unsigned char *d, size_t n, const entry *e, int count) {
  size_t header = 32;
  for (int i = 0; i < count; i++) header += 24 + strlen(e[i].id);
  for (size_t at = header; at < n; at++) {
    int inside = 0;
    for (int i = 0; i < count && !inside; i++) inside = at >= e[i].offset && at < e[i].offset + e[i].size;
    if (!inside && d[at]) return 0;
  }
  return 1;
}

/* ---- the layout, entry by entry ---- */
static void test_layout(void) {
  const char *chips[] = {"gfx942", "gfx90a", "gfx1100"};
  gpublob_options o = pack_options("amdgcn:gfx942,gfx90a,gfx1100", GPUBLOB_FORMAT_PACK, GPUBLOB_TOOL_AUTO);
  gpublob_result r = {0}, bins = {0};
  int rc = compile(&o, &r);
  o.format = GPUBLOB_FORMAT_BIN;
  int brc = compile(&o, &bins);
#define LAY "pack: 3 chips in one offload bundle (in-process)"
  check(rc == 0 && r.count == 1, LAY ": one output", "rc %d, %zu outputs", rc, r.count);
  check(brc == 0 && bins.count == 3, LAY ": bin gives the 3 hsacos to compare with", "rc %d", brc);
  if (rc || r.count != 1 || brc || bins.count != 3) return;
  const gpublob_output *out = &r.outputs[0];
  check(same_str(out->target, "amdgcn") && same_str(out->chip, "gfx942,gfx90a,gfx1100"),
        LAY ": labelled amdgcn, its chips in the order asked", "%s %s", out->target, out->chip);
  check(same_str(out->tool, "offload_bundle"), LAY ": made by the in-process provider", "%s", out->tool);
  check(same_str(out->blob.suffix, ".hipfb"), LAY ": suffix .hipfb", "%s", shown(out->blob.suffix));
  check(out->blob.size > 24 && !memcmp(out->blob.data, MAGIC, 24), LAY ": starts with " MAGIC, NULL);
  entry e[8];
  int n = read_entries(out->blob.data, out->blob.size, e, 8);
  check(n == 4, LAY ": 4 entries (the host and 3 chips)", "%d", n);
  if (n != 4) return;
  check(same_str(e[0].id, HOST) && e[0].size == 0, LAY ": the first entry is the host's, empty",
        "%s, %llu bytes", e[0].id, (unsigned long long)e[0].size);
  for (int i = 0; i < 3; i++) {
    char id[128];
    snprintf(id, sizeof id, HIP "%s", chips[i]);
    const gpublob_blob *b = &bins.outputs[i].blob;
    check(same_str(e[i + 1].id, id), LAY ": entry i+1 is chip i's", "entry %d: %s, not %s", i + 1, e[i + 1].id, id);
    check(e[i + 1].size == b->size && !memcmp(out->blob.data + e[i + 1].offset, b->data, b->size),
          LAY ": entry i+1 holds the bin compile's hsaco of chip i", "entry %d: %llu bytes, the hsaco %zu",
          i + 1, (unsigned long long)e[i + 1].size, b->size);
  }
  int aligned = 1, ordered = 1;
  for (int i = 0; i < 4; i++) aligned &= e[i].offset % 4096 == 0;
  for (int i = 1; i < 4; i++) ordered &= e[i].offset >= e[i - 1].offset + e[i - 1].size;
  check(aligned, LAY ": every offset is a multiple of 4096", "%llu %llu %llu %llu", (unsigned long long)e[0].offset,
        (unsigned long long)e[1].offset, (unsigned long long)e[2].offset, (unsigned long long)e[3].offset);
  check(ordered && e[0].offset == 4096 && e[1].offset == 4096, LAY ": in order, the host and the first chip at 4096",
        "%llu %llu", (unsigned long long)e[0].offset, (unsigned long long)e[1].offset);
  check(out->blob.size == e[3].offset + e[3].size, LAY ": the file ends where the last entry ends", "%zu", out->blob.size);
  check(gaps_zero(out->blob.data, out->blob.size, e, n), LAY ": the bytes between entries are zero", NULL);
  gpublob_result_free(&r);
  gpublob_result_free(&bins);
}

/* ---- clang-offload-bundler reads it back: -list, -unbundle, each chip's hsaco ---- */
static void check_unbundled(const char *bundle, const char *chip) {
  char id[128], name[64];
  snprintf(id, sizeof id, HIP "%s", chip);
  snprintf(name, sizeof name, "unbundled-%s.hsaco", chip);
  const char *path = tmp_path(name);
  int rc = unbundle(bundle, id, path);
  size_t n = 0;
  unsigned char *d = slurp(path, &n);
#define UNB "pack: clang-offload-bundler -unbundle gives each chip's hsaco"
  check(rc == 0 && d, UNB ": unbundles", "%s: exit %d", chip, rc);
  check_if(d, is_elf(d, n) && elf_machine_of(d, n) == EM_AMDGPU, UNB ": an AMD GPU ELF", "%s", chip);
  check(amdgpu_chip_is(path, chip), UNB ": llvm-readelf's flags name its chip", "%s", chip);
  const char *argv[] = {OBJDUMP, "-d", path, NULL};
  char *text = NULL;
  rc = run(argv, &text);
  check(rc == 0 && contains(text, "<store>:") && contains(text, "s_endpgm"),
        UNB ": llvm-objdump decodes its store kernel (for the chip in its flags)", "%s: exit %d", chip, rc);
  free(text);
  free(d);
}

static void test_unbundle(void) {
  gpublob_options o = pack_options("amdgcn:gfx90a,gfx942,gfx1100", GPUBLOB_FORMAT_PACK, GPUBLOB_TOOL_AUTO);
  gpublob_result r = {0};
  if (compile(&o, &r) || r.count != 1) {
    check(0, "pack: a bundle of gfx90a, gfx942, gfx1100 to read back", NULL);
    return;
  }
  const char *path = tmp_path("three.hipfb");
  spill(path, r.outputs[0].blob.data, r.outputs[0].blob.size);
  char input[4400], *text = NULL;
  snprintf(input, sizeof input, "-input=%s", path);
  const char *argv[] = {BUNDLER, "-list", "-type=o", input, NULL};
  int rc = run(argv, &text);
  int lines = 0;
  for (const char *p = text; p && *p; p++) lines += *p == '\n';
  check(rc == 0 && lines == 4 && contains(text, HOST "\n") && contains(text, HIP "gfx90a\n") &&
            contains(text, HIP "gfx942\n") && contains(text, HIP "gfx1100\n"),
        "pack: clang-offload-bundler -list names the host and the 3 chips, and nothing else", "exit %d: %s", rc,
        shown(text));
  free(text);
  const char *chips[] = {"gfx90a", "gfx942", "gfx1100"};
  for (int i = 0; i < 3; i++) check_unbundled(path, chips[i]);
  const char *host = tmp_path("host.o");
  rc = unbundle(path, "host-x86_64-unknown-linux-gnu", host);
  struct stat st;
  check(rc == 0 && !stat(host, &st) && st.st_size == 0, "pack: the host entry unbundles to an empty file", "exit %d",
        rc);
  gpublob_result_free(&r);
}

/* ---- the same bytes as clang-offload-bundler's ---- */
/* clang-offload-bundler over the chips' hsacos, with the argv clang -x hip gives it
** (clang-22 -### --offload-arch=A --offload-arch=B -x hip --cuda-device-only). */
static unsigned char *bundle_by_hand(const gpublob_result *bins, size_t *size) {
  char targets[1024] = "-targets=host-x86_64-unknown-linux-gnu", inputs[8][4400], output[4400];
  const char *argv[16] = {BUNDLER, "-type=o", "-bundle-align=4096", targets, "-input=/dev/null"};
  int k = 5;
  for (size_t i = 0; i < bins->count && i < 8; i++) {
    char name[64];
    snprintf(name, sizeof name, "byhand-%zu.hsaco", i);
    const char *path = tmp_path(name);
    spill(path, bins->outputs[i].blob.data, bins->outputs[i].blob.size);
    snprintf(targets + strlen(targets), sizeof targets - strlen(targets), ",%s%s", HIP, bins->outputs[i].chip);
    snprintf(inputs[i], sizeof inputs[i], "-input=%s", path);
    argv[k++] = inputs[i];
  }
  const char *out = tmp_path("byhand.hipfb");
  snprintf(output, sizeof output, "-output=%s", out);
  argv[k++] = output;
  argv[k] = NULL;
  unlink(out);
  return run(argv, NULL) ? NULL : slurp(out, size);
}

static void test_same_bytes(const char *target, int nchips) {
  gpublob_options o = pack_options(target, GPUBLOB_FORMAT_BIN, GPUBLOB_TOOL_AUTO);
  gpublob_result bins = {0}, inproc = {0}, prog = {0};
  int rc = compile(&o, &bins);
  o.format = GPUBLOB_FORMAT_PACK;
  rc |= compile(&o, &inproc);
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  rc |= compile(&o, &prog);
  size_t n = 0;
  unsigned char *hand = !rc && (int)bins.count == nchips ? bundle_by_hand(&bins, &n) : NULL;
  check(rc == 0 && hand, "pack: bin, in-process pack, program pack and clang-offload-bundler by hand", "%s", target);
  if (hand && inproc.count == 1 && prog.count == 1) {
    const gpublob_blob *a = &inproc.outputs[0].blob, *b = &prog.outputs[0].blob;
    check(a->size == n && !memcmp(a->data, hand, n),
          "pack: the in-process bundle is byte for byte clang-offload-bundler's (run as clang runs it)",
          "%s: %zu bytes against %zu", target, a->size, n);
    check(b->size == n && !memcmp(b->data, hand, n), "pack: --tool-mode program's bundle is the same bytes",
          "%s: %zu bytes against %zu", target, b->size, n);
    check(same_str(prog.outputs[0].tool, "clang-offload-bundler"),
          "pack: --tool-mode program runs clang-offload-bundler", "%s", prog.outputs[0].tool);
    entry e[8];
    int k = read_entries(a->data, a->size, e, 8);
    check(k == nchips + 1 && same_str(e[0].id, HOST) && e[0].size == 0,
          "pack: the host entry first and empty, then one entry per chip", "%s: %d entries", target, k);
  }
  free(hand);
  gpublob_result_free(&bins);
  gpublob_result_free(&inproc);
  gpublob_result_free(&prog);
}

/* ---- the pack tool missing, failing, writing garbage: nothing left behind ---- */
static int dir_empty(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)))
    n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
  if (d) closedir(d);
  return d && !n;
}

/* A directory holding ld.lld and, with body, a clang-offload-bundler script. */
static const char *tool_dir(const char *name, const char *body) {
  static char dirs[4][4200];
  static int next;
  char *dir = dirs[next++ % 4], path[4400];
  snprintf(dir, sizeof dirs[0], "%s", tmp_path(name));
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/ld.lld", dir);
  if (symlink(LLVM_BINDIR "/ld.lld", path)) {}
  if (body) {
    snprintf(path, sizeof path, "%s/clang-offload-bundler", dir);
    spill(path, body, strlen(body));
    chmod(path, 0755);
  }
  return dir;
}

static void expect_failure(const char *what, const char *dir, int tool_mode, int code, const char *part) {
  gpublob_options o = pack_options("amdgcn:gfx90a,gfx942", GPUBLOB_FORMAT_PACK, tool_mode);
  o.tool_dirs = dir;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  gpublob_result r = {0};
  gpublob_input in = {GPUBLOB_INPUT_LLVM, kernel_ll, sizeof kernel_ll - 1, NULL, "store.ll"};
  int rc = gpublob_compile(g, &o, &in, &r);
  const char *msg = gpublob_error_message(g);
  char label[4][256];
  const char *tails[] = {"the code", "a message naming the cause", "no output", "nothing left in TMPDIR"};
  for (int i = 0; i < 4; i++) snprintf(label[i], sizeof label[i], "%s: %s", what, tails[i]);
  check(rc == code, label[0], "rc %d (%s), want %d", rc, msg, code);
  check(contains(msg, part), label[1], "wants '%s': %s", part, msg);
  check(r.count == 0, label[2], "%zu outputs", r.count);
  check(dir_empty(tmpdir), label[3], "%s", tmpdir);
  gpublob_result_free(&r);
}

static void test_tool_failures(void) {
  const char *lld_only = tool_dir("lld-only", NULL);
  expect_failure("pack: --tool-mode program without clang-offload-bundler is NOTOOL", lld_only,
                 GPUBLOB_TOOL_PROGRAM, GPUBLOB_NOTOOL, "clang-offload-bundler clang-offload-bundler-22 (the pack tool)");
  const char *fails = tool_dir("bundler-fails",
                               "#!/bin/sh\nfor a in \"$@\"; do case $a in -output=*) echo part > \"${a#-output=}\" ;; esac; done\n"
                               "echo 'bundler: refused' >&2\nexit 1\n");
  expect_failure("pack: a clang-offload-bundler that fails is TOOL, with its stderr", fails, GPUBLOB_TOOL_PROGRAM,
                 GPUBLOB_TOOL, "bundler: refused");
  const char *garbage = tool_dir("bundler-garbage",
                                 "#!/bin/sh\nfor a in \"$@\"; do case $a in -output=*) echo garbage > \"${a#-output=}\" ;; esac; done\n");
  expect_failure("pack: a clang-offload-bundler that writes no bundle is TOOL, naming the magic", garbage,
                 GPUBLOB_TOOL_PROGRAM, GPUBLOB_TOOL, "5f5f434c414e475f4f46464c4f41445f42554e444c455f5f");
  expect_failure("pack: a garbage bundle's error names the pack and its members", garbage, GPUBLOB_TOOL_PROGRAM,
                 GPUBLOB_TOOL, "clang-offload-bundler for amdgcn:gfx90a,gfx942 gave 8 bytes that do not start as a "
                 ".hipfb pack of 2 members does");
  /* in-process needs no program: the same directories pack */
  gpublob_options o = pack_options("amdgcn:gfx90a,gfx942", GPUBLOB_FORMAT_PACK, GPUBLOB_TOOL_AUTO);
  o.tool_dirs = fails;
  o.flags = GPUBLOB_FLAG_NO_DEFAULT_SEARCH;
  gpublob_result r = {0};
  int rc = compile(&o, &r);
  check(rc == 0 && r.count == 1 && same_str(r.outputs[0].tool, "offload_bundle"),
        "pack: auto packs in-process, whatever pack program is on the search path", "rc %d", rc);
  check(dir_empty(tmpdir), "pack: ... and leaves nothing in TMPDIR", "%s", tmpdir);
  gpublob_result_free(&r);
}

/* ---- the cache: a hit gives the same bundle; program and in-process are filed apart ---- */
static size_t hits(void) {
  gpublob_stats s;
  gpublob_stats_get(g, &s, sizeof s);
  return s.cache_hits;
}

static void test_cache(void) {
  gpublob_options o = pack_options("amdgcn:gfx90a,gfx1030", GPUBLOB_FORMAT_PACK, GPUBLOB_TOOL_AUTO);
  o.cache_dir = tmp_path("cache");
  gpublob_result a = {0}, b = {0}, c = {0}, d = {0};
  int rc = compile(&o, &a);
  size_t h1 = hits();
  rc |= compile(&o, &b);
  size_t h2 = hits();
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  rc |= compile(&o, &c);
  size_t h3 = hits();
  rc |= compile(&o, &d);
  size_t h4 = hits();
  check(rc == 0 && a.count == 1 && b.count == 1 && c.count == 1 && d.count == 1, "pack: four cached calls compile",
        "rc %d", rc);
  if (rc || a.count != 1 || b.count != 1 || c.count != 1 || d.count != 1) return;
  const gpublob_blob *x = &a.outputs[0].blob;
  check(h1 == 0 && h2 == 1 && x->size == b.outputs[0].blob.size && !memcmp(x->data, b.outputs[0].blob.data, x->size) &&
            same_str(b.outputs[0].tool, "offload_bundle"),
        "pack: the second in-process call is a hit, with the same bundle", "hits %zu %zu", h1, h2);
  check(h3 == 0 && same_str(c.outputs[0].tool, "clang-offload-bundler"),
        "pack: --tool-mode program is not served the in-process entry", "hits %zu, tool %s", h3, c.outputs[0].tool);
  check(h4 == 1 && same_str(d.outputs[0].tool, "clang-offload-bundler") && d.outputs[0].blob.size == x->size &&
            !memcmp(d.outputs[0].blob.data, x->data, x->size),
        "pack: the program's second call is a hit, the same bytes", "hits %zu", h4);
  gpublob_result_free(&a);
  gpublob_result_free(&b);
  gpublob_result_free(&c);
  gpublob_result_free(&d);
}

/* ---- the CLI: -f fatbin writes STEM.hipfb beside the input ---- */
static void test_cli(void) {
  const char *in = tmp_path("k.ll"), *out = tmp_path("k.hipfb");
  spill(in, kernel_ll, sizeof kernel_ll - 1);
  const char *argv[] = {CLI, "--no-cache", "-f", "fatbin", "-t", "amdgcn:gfx90a,gfx942", in, NULL};
  char *text = NULL;
  int rc = run(argv, &text);
  size_t n = 0;
  unsigned char *d = slurp(out, &n);
  entry e[4];
  check(rc == 0 && d && read_entries(d, n, e, 4) == 3, "pack: gpublob -f fatbin -t amdgcn:gfx90a,gfx942 k.ll writes k.hipfb",
        "exit %d: %s", rc, shown(text));
  free(text);
  free(d);
}

int main(void) {
  if (gpublob_open(&g)) return 2;
  snprintf(tmpdir, sizeof tmpdir, "%s", tmp_path("tmp"));
  mkdir(tmpdir, 0700);
  setenv("TMPDIR", tmpdir, 1);
  if (access(BUNDLER, X_OK)) {
    skip("pack: offload bundles", BUNDLER " not found (apt-get install clang-tools-22)");
  } else {
    test_layout();
    test_unbundle();
    test_same_bytes("amdgcn:gfx90a", 1);
    test_same_bytes("amdgcn:gfx90a,gfx942", 2);
    test_same_bytes("amdgcn:gfx90a,gfx942,gfx1030,gfx1100", 4);
    test_tool_failures();
    test_cache();
    test_cli();
  }
  gpublob_close(g);
  return report();
}
