/* test_abi10: a program written against the released 1.0 header (tests/abi/gpublob-1.0.h,
** not ./gpublob.h) and linked with today's libgpublob.a keeps working: its options
** (version 5, the 1.0 size), results, stats, target and tool info, errors.  The
** options struct ends where a PROT_NONE page begins, so a read of a field 1.0 did not
** have would crash this test rather than pass unseen; the out-structs are checked
** for a write past their 1.0 size by a guard word after each. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "gpublob-1.0.h"
#include "testlib.h"

#if GPUBLOB_OPTIONS_VERSION != 5
#error "this test is built against the 1.0 header"
#endif

/* A 1.0 options struct whose last byte is the last of a page; the next page is PROT_NONE. */
static gpublob_options *edge_options(void) {
  long page = sysconf(_SC_PAGESIZE);
  unsigned char *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED || mprotect(m + page, (size_t)page, PROT_NONE)) return NULL;
  gpublob_options *o = (gpublob_options *)(m + page - sizeof *o);
  memset(o, 0, sizeof *o);
  o->version = GPUBLOB_OPTIONS_VERSION;
  return o;
}

static void compile_one(gpublob *g, gpublob_options *o, const char *target, const char *path, const char *suffix,
                        unsigned machine) {
  char name[256];
  o->target = target;
  gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, path, NULL};
  gpublob_result r;
  memset(&r, 0x55, sizeof r);
  int rc = gpublob_compile(g, o, &in, &r);
  snprintf(name, sizeof name, "1.0: %s compiles with 1.0's options (version 5)", target);
  check(rc == GPUBLOB_OK, name, "%s", gpublob_error_message(g));
  if (rc) return;
  snprintf(name, sizeof name, "1.0: %s: one output, its blob, suffix, target and chip", target);
  check(r.count == 1 && r.outputs[0].blob.size > 16 && !strcmp(r.outputs[0].blob.suffix, suffix) &&
            !strcmp(r.outputs[0].target, target) && *r.outputs[0].chip,
        name, "%zu outputs", r.count);
  snprintf(name, sizeof name, "1.0: %s: the blob is an ELF of its machine, or SPIR-V", target);
  const unsigned char spv[] = {0x03, 0x02, 0x23, 0x07};
  check(r.count == 1 && (machine ? elf_machine_of(r.outputs[0].blob.data, r.outputs[0].blob.size) == machine
                                 : !memcmp(r.outputs[0].blob.data, spv, 4)),
        name, NULL);
  struct {
    gpublob_stats s;
    unsigned guard;
  } st = {.guard = 0xfeedf00du};
  rc = gpublob_stats_get(g, &st.s, sizeof st.s);
  snprintf(name, sizeof name, "1.0: %s: stats at 1.0's size: a job, a miss-free call, nothing past it", target);
  check(rc == GPUBLOB_OK && st.s.jobs == 1 && st.s.wall_ms > 0 && st.guard == 0xfeedf00du, name, "rc %d, %zu jobs",
        rc, st.s.jobs);
  gpublob_result_free(&r);
  check(r.count == 0 && r.outputs == NULL, "1.0: gpublob_result_free zeroes the result", NULL);
}

int main(void) {
  gpublob *g;
  if (gpublob_open(&g)) return 1;
  gpublob_options *o = edge_options();
  check(o != NULL, "1.0: options at a page's end", NULL);
  if (!o) return report();
  check(!strcmp(gpublob_version(), GPUBLOB_VERSION_STRING) || !strncmp(gpublob_version(), "1.", 2),
        "1.0: gpublob_version is a 1.x", "%s", gpublob_version());
  compile_one(g, o, "spirv", "examples/saxpy_spirv.ll", ".spv", 0);
  if (need_rocm("1.0: amdgcn compiles with 1.0's options (version 5)")) /* saxpy's expf is ocml's */
    compile_one(g, o, "amdgcn", "examples/saxpy_amdgcn.ll", ".hsaco", 224 /* EM_AMDGPU */);

  /* an error: its code and message, and the result zeroed */
  o->target = "nosuch";
  gpublob_input in = {GPUBLOB_INPUT_LLVM, NULL, 0, "examples/saxpy_spirv.ll", NULL};
  gpublob_result r;
  memset(&r, 0x55, sizeof r);
  int rc = gpublob_compile(g, o, &in, &r);
  check(rc == GPUBLOB_TARGET && gpublob_error_code(g) == GPUBLOB_TARGET && contains(gpublob_error_message(g), "nosuch") &&
            r.count == 0 && r.outputs == NULL,
        "1.0: an unknown target is TARGET, named, the result zeroed", "rc %d: %s", rc, gpublob_error_message(g));

  /* target info at 1.0's size */
  int n = gpublob_target_count(), good = n >= 3;
  for (int i = 0; good && i < n; i++) {
    struct {
      gpublob_target_info t;
      unsigned guard;
    } ti = {.guard = 0xfeedf00du};
    good = gpublob_target_get(i, &ti.t, sizeof ti.t) == GPUBLOB_OK && ti.t.name && *ti.t.name && ti.t.triple &&
           ti.t.chips && ti.t.libs && ti.guard == 0xfeedf00du;
  }
  check(good, "1.0: every target's info at 1.0's size, nothing written past it", "%d targets", n);
  check(gpublob_target_get(n, &(gpublob_target_info){0}, sizeof(gpublob_target_info)) == GPUBLOB_MISUSE,
        "1.0: a target out of range is MISUSE", NULL);

  /* tool info at 1.0's size */
  struct {
    gpublob_tool_info t;
    unsigned guard;
  } tl = {.guard = 0xfeedf00du};
  o->target = "amdgcn";
  rc = gpublob_tool_info_get(g, o, 1, &tl.t, sizeof tl.t);
  /* the ld.lld program, or lld in-process where the build links it (auto takes it: the same bytes) */
  int lld = rc == GPUBLOB_OK && ((!strcmp(tl.t.kind, "program") && strstr(tl.t.path, "ld.lld")) ||
                                 (!strcmp(tl.t.kind, "in-process") && !strcmp(tl.t.name, "lld")));
  check(lld && tl.guard == 0xfeedf00du, "1.0: amdgcn's tool info (ld.lld, or lld in-process) at 1.0's size",
        "rc %d: %s", rc, gpublob_error_message(g));
  o->target = "spirv";
  rc = gpublob_tool_info_get(g, o, 1, &tl.t, sizeof tl.t);
  check(rc == GPUBLOB_OK && !strcmp(tl.t.kind, "none"), "1.0: spirv needs no tool", "rc %d", rc);

  /* the 1.0 wrappers */
  gpublob_blob b = {0};
  o->target = "spirv";
  rc = gpublob_file_compile(g, o, "examples/saxpy_spirv.ll", &b);
  check(rc == GPUBLOB_OK && b.size > 16 && !strcmp(b.suffix, ".spv"), "1.0: gpublob_file_compile", "%s",
        gpublob_error_message(g));
  gpublob_blob_free(&b);
  gpublob_close(g);
  return report();
}
