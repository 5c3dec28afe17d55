/* programs/disasm.c: inspect --disasm's code of an entry (gpublob-compiler's alone: it
** needs LLVM).  A bin blob whose target LLVM can disassemble: each kernel by
** gpublob_disasm, in process.  Another: its vendor's disassembler where one is found
** (the table below, by the blob's suffix: a cubin's SASS by nvdisasm or cuobjdump,
** SPIR-V by spirv-dis), in PATH or beside the target's blob tool (the CUDA toolkit's
** bin), run on a private copy of the blob; where none is, a warning naming each one
** missing.  Assembly (a fatbin's PTX) is its own text. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The disassemblers of a blob by its suffix, each a program and the word it takes
** before the file (NULL: none). */
static const struct { const char *suffix, *program, *word; } vendor_tools[] = {
    {".cubin", "nvdisasm", NULL}, {".cubin", "cuobjdump", "-sass"}, {".spv", "spirv-dis", NULL}};
enum { NTOOLS = sizeof vendor_tools / sizeof *vendor_tools };

/* An executable name in dir (the blob tool's, if any) or PATH, into path. */
static int find_program(const char *name, const char *dir, char *path, size_t size) {
  if (*dir && snprintf(path, size, "%s/%s", dir, name) < (int)size && !access(path, X_OK)) return 1;
  const char *p = getenv("PATH");
  for (size_t n; p && *p; p += n + (p[n] == ':')) {
    n = strcspn(p, ":");
    if (n && snprintf(path, size, "%.*s/%s", (int)n, p, name) < (int)size && !access(path, X_OK)) return 1;
  }
  return 0;
}

/* The directory of the target's blob tool ("" when it has none, or it is not found). */
static void tool_dir(gpublob *g, const char *target, char *dir, size_t size) {
  gpublob_options o = GPUBLOB_OPTIONS_INIT;
  gpublob_tool_info info;
  o.target = target;
  o.tool_mode = GPUBLOB_TOOL_PROGRAM;
  *dir = 0;
  if (gpublob_tool_info_get(g, &o, 1, &info, sizeof info) || !*info.path) return;
  const char *slash = strrchr(info.path, '/');
  if (slash) snprintf(dir, size, "%.*s", (int)(slash - info.path), info.path);
}

/* program [word] FILE, the blob in a private temporary file, its stdout to ours.  The
** file is the signal handler's to remove (pending_set) until it is removed here; the
** program dies with this process (PR_SET_PDEATHSIG). */
static int run_vendor(const char *program, const char *word, const gpublob_blob *b) {
  static char tmp[PATH_MAX];
  static char *pending[1];
  const char *dir = getenv("TMPDIR");
  snprintf(tmp, sizeof tmp, "%s/gpublob-disasm-XXXXXX", dir && *dir ? dir : "/tmp");
  pending[0] = tmp;
  sigset_t all, was;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, &was); /* no handler between the file's making and its pending entry */
  int fd = mkstemp(tmp);
  if (fd >= 0) pending_set(pending, 1);
  sigprocmask(SIG_SETMASK, &was, NULL);
  if (fd < 0 || write_all(fd, b->data, b->size) || close(fd)) {
    if (fd >= 0) unlink(tmp);
    pending_set(NULL, 0);
    return fail("inspect --disasm: cannot write a temporary file: %s", strerror(errno));
  }
  size_t n = 0, k = 0;
  while (environ[n]) n++;
  char **env = calloc(n + 1, sizeof *env); /* the remote tier's strings withheld, as from every tool */
  for (size_t i = 0; env && i < n; i++)
    if (strncmp(environ[i], "GPUBLOB_REMOTE_", 15)) env[k++] = environ[i];
  fflush(stdout);
  pid_t parent = getpid(), pid = env ? fork() : -1;
  if (pid == 0) {
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent) _exit(127); /* the parent gone already */
    const char *argv[] = {program, word ? word : tmp, word ? tmp : NULL, NULL};
    execve(program, (char *const *)argv, env);
    _exit(127);
  }
  free(env);
  int st = 0;
  while (pid > 0 && waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
  unlink(tmp);
  pending_set(NULL, 0);
  if (pid < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
    fprintf(stderr, "gpublob: error: inspect --disasm: %s failed\n", program);
    return 10 + GPUBLOB_TOOL;
  }
  return 0;
}

/* A blob LLVM does not disassemble (why: the library's word, "" for none): its
** vendor's tool, else a warning naming them. */
static int vendor_disasm(gpublob *g, const gpublob_output *o, const char *why) {
  char dir[4096], path[4096 + 64], missing[512] = "";
  tool_dir(g, o->target, dir, sizeof dir);
  for (int i = 0; i < NTOOLS; i++) {
    if (strcmp(vendor_tools[i].suffix, o->blob.suffix)) continue;
    if (find_program(vendor_tools[i].program, dir, path, sizeof path)) return run_vendor(path, vendor_tools[i].word, &o->blob);
    size_t n = strlen(missing);
    snprintf(missing + n, sizeof missing - n, "%s%s", n ? " nor " : "", vendor_tools[i].program);
  }
  if (!*missing)
    fprintf(stderr, "gpublob: warning: inspect --disasm: %s %s %s: no disassembly: %s\n", o->target, o->chip,
            o->blob.suffix, *why ? why : "no disassembler reads it");
  else
    fprintf(stderr, "gpublob: warning: inspect --disasm: %s %s %s: no disassembly: neither %s found (PATH%s%s)\n",
            o->target, o->chip, o->blob.suffix, missing, *dir ? ", " : "", dir);
  return 0;
}

int disasm_entry(gpublob *g, const gpublob_result *r, size_t i) {
  const gpublob_output *o = &r->outputs[i];
  size_t n = 0;
  int rc = gpublob_kernel_count(g, r, i, &n);
  if (rc == GPUBLOB_FORMAT) { /* records no kernels: assembly is its own text */
    gpublob_target_info t;
    for (int k = 0; k < gpublob_target_count(); k++)
      if (!gpublob_target_get(k, &t, sizeof t) && !strcmp(t.name, o->target) && !strcmp(t.suffix_asm, o->blob.suffix))
        return fwrite(o->blob.data, 1, o->blob.size, stdout), 0;
    return vendor_disasm(g, o, "");
  }
  for (size_t k = 0; !rc && k < n; k++) {
    const char *code;
    gpublob_kernel_info info;
    if ((rc = gpublob_kernel_get(g, r, i, k, &info, sizeof info))) break;
    rc = gpublob_disasm(g, r, i, k, &code);
    if (rc == GPUBLOB_FORMAT) {
      char why[1024];
      snprintf(why, sizeof why, "%s", gpublob_error_message(g));
      return vendor_disasm(g, o, why);
    }
    if (!rc) printf("<%s>:\n%s", info.name, code);
  }
  if (rc) fprintf(stderr, "gpublob: error: inspect --disasm: %s %s: %s\n", o->target, o->chip, gpublob_error_message(g));
  return rc ? 10 + rc : 0;
}
