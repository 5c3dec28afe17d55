/* src/dump.c: The dump directory (the options' dump_dir): each job's intermediates, for
** debugging a compile by hand, under names from the input's stem, the target and the
** chip (safe_chip_name: gfx90a:xnack+ gives gfx90a-xnack+):
**   STEM.TARGET.CHIP.0-input.ll      the module as parsed (or translated from MLIR)
**                    1-linked.ll     after the device libraries
**                    2-optimised.ll  after optimisation
**                    3-isa.SUFFIX    the backend's assembly (the spec's suffix_asm)
**                    3-object.o      the backend's object, where it emits one (a
**                                    target without a blob tool: the blob, .spv)
**                    4-tool.sh       the blob tool's command line, every word quoted,
**                                    reading the dumped ISA or object and writing
**                                    6-blob.SUFFIX beside it (absolute paths)
**                    5-tool.log      the tool's stdout and stderr, and how it ended
** and for a pack STEM.TARGET.CHIPS.7-pack.sh (its members' blobs as 6-blob files).
** MLIR's gpu.module @NAME adds .NAME after the stem.  Each file is written whole (a
** temporary beside it, then rename); one that cannot be written fails the job with
** IO, naming it.  What was written stays, on failure too: a failing tool leaves its
** script and log.  An isolated job's LLVM work writes its own dumps in its child
** (the job's names travel with it).  A call with a dump directory never answers
** from the cache (cache_stream_lookup, src/cache_stream.c), but stores what it compiled: dump_dir changes no
** output byte and is not in the cache's keys. */

/* A program found by find into path, or "" (a missing one is no error here: the
** dump directory's scripts, a pack's script in src/pack.c). */
GPUBLOB_PRIVATE void dump_find_quietly(job *j, int (*find)(job *, strbuf *), strbuf *path) {
  int code = j->g->code;
  if (find(j, path)) sb_reset(path);
  j->g->code = code;
  sb_reset(&j->g->msg);
}

/* ---- names: the directory made, the job's prefix ---- */
/* The directory made if missing, and the job's names' prefix. */
static int dump_prefix(job *j, const char *name, const char *module, size_t modn) {
  const char *dir = j->o->dump_dir;
  sb_reset(&j->dump);
  if (!dir || !*dir) return GPUBLOB_OK;
  char *abs = io_make_dirs(dir, 0777) ? NULL : realpath(dir, NULL);
  if (!abs) return handle_set_error(j->g, GPUBLOB_IO, "cannot make the dump directory %s: %s", dir, strerror(errno));
  const char *stem;
  size_t n = name_stem(name, &stem);
  char part[256] = "";
  safe_chip_name(part, sizeof part, stem, n);
  sb_addf(&j->dump, "%s%s%s", abs, abs[1] ? "/" : "", *part ? part : "module");
  free(abs);
  part[0] = 0;
  safe_chip_name(part, sizeof part, module ? module : "", modn);
  if (*part) sb_addf(&j->dump, ".%s", part);
  part[0] = 0;
  safe_chip_name(part, sizeof part, j->chip, strlen(j->chip));
  sb_addf(&j->dump, ".%s.%s.", j->t->name, part);
  return j->dump.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* Plan time, on the caller's thread: the directory made if missing, and job i's
** names' prefix /ABS/DIR/STEM[.MODULE].TARGET.CHIP. (module: MLIR's gpu.module); a
** prefix an earlier job of the plan has (a chip asked for twice) gets -2, -3 after
** the chip, so no two jobs write one file. */
GPUBLOB_PRIVATE int dump_prepare(plan *p, size_t i, const char *name, const char *module, size_t modn) {
  job *j = p->jobs[i];
  int rc = dump_prefix(j, name, module, modn);
  size_t len = j->dump.len;
  unsigned n = 2;
  for (size_t k = 0; !rc && len && k < i; k++)
    if (!strcmp(sb_str(&p->jobs[k]->dump), sb_str(&j->dump))) {
      j->dump.len = len - 1; /* before the prefix's last '.' */
      sb_addf(&j->dump, "-%u.", n++);
      k = SIZE_MAX; /* again from the first (k++ makes it 0): the new prefix may be taken too */
    }
  return rc || !j->dump.oom ? rc : handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
}

/* The dump file what of the job, its path into path. */
static void dump_path(const job *j, const char *what, strbuf *path) {
  sb_reset(path);
  sb_addf(path, "%s%s", sb_str(&j->dump), what);
}

/* n bytes of data as the dump file prefix+what (mode under the umask), written whole;
** an error is g's. */
GPUBLOB_PRIVATE int dump_write_at(gpublob *g, const strbuf *prefix, const char *what, const void *data, size_t n,
                         mode_t mode) {
  if (!prefix->len) return GPUBLOB_OK;
  static atomic_uint counter;
  strbuf path = {0}, tmp = {0};
  sb_addf(&path, "%s%s", sb_str(prefix), what);
  sb_addf(&tmp, "%s.tmp-%d-%u", sb_str(&path), (int)getpid(), atomic_fetch_add(&counter, 1));
  int rc = path.oom || tmp.oom ? handle_set_error(g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
  if (!rc && (io_write_new_file(AT_FDCWD, sb_str(&tmp), mode, NULL, 0, data, n) ||
              rename(sb_str(&tmp), sb_str(&path)))) {
    int err = errno;
    unlink(sb_str(&tmp));
    rc = handle_set_error(g, GPUBLOB_IO, "cannot write the dump file %s: %s", sb_str(&path), strerror(err));
  }
  sb_free(&path);
  sb_free(&tmp);
  return rc;
}

static int dump_write(job *j, const char *what, const void *data, size_t n, mode_t mode) {
  return dump_write_at(j->g, &j->dump, what, data, n, mode);
}

/* ---- the job's LLVM work: the module, the ISA, the object ---- */
GPUBLOB_PRIVATE int dump_module(job *j, const char *what) {
  if (!j->dump.len) return GPUBLOB_OK;
  char *text = LLVMPrintModuleToString(j->llvm->mod);
  int rc = dump_write(j, what, text, strlen(text), 0666);
  LLVMDisposeMessage(text);
  return rc;
}

/* The dump's name of the job's ISA, 3-isa and the spec's suffix_asm; NULL when out
** of memory (an error set). */
static const char *isa_name(job *j, strbuf *b) {
  sb_addf(b, "3-isa%s", j->t->suffix_asm);
  return b->oom ? (handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory"), NULL) : sb_str(b);
}

/* The copy's assembly: 0 with *buf, else 1 (LLVM's reason in *err, or an error
** diagnostic).  Its diagnostics are not the job's: they go. */
static int copy_isa_emit(job *j, LLVMModuleRef copy, LLVMMemoryBufferRef *buf, char **err) {
  size_t diag = j->diag.len;
  int errors = j->diag_errors;
  LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(j->llvm->tm, copy, LLVMAssemblyFile, err, buf);
  failed = failed || j->diag_errors != errors;
  j->diag.len = diag;
  if (j->diag.s) j->diag.s[diag] = 0;
  j->diag_errors = errors;
  return failed;
}

static void warn_no_isa(job *j, const char *what, const char *why) {
  handle_add_warning(j->g, "%s (%s:%s): no %s in the dump directory: LLVM's backend gave no assembly%s%s", j->name,
              j->t->name, j->chip, what, why ? ": " : "", why ? why : "");
}

/* The ISA of the copy, for the dump alone: a backend that gives none (or fails) is a
** warning. */
static int dump_copy_isa(job *j, LLVMModuleRef copy, const char *what) {
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  int rc = GPUBLOB_OK;
  if (copy_isa_emit(j, copy, &buf, &err)) warn_no_isa(j, what, err);
  else rc = dump_write(j, what, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), 0666);
  if (buf) LLVMDisposeMemoryBuffer(buf);
  LLVMDisposeMessage(err);
  return rc;
}

/* A backend that keeps one module's state in the process for the next (the spec's
** isolate = always: its jobs run in a child of the helper) emits once a process.  The
** copy's ISA is therefore emitted by a process forked from that child, which is
** single-threaded, before the object's emission: it writes the dump and exits 0, 1
** when the file could not be written, 2 when the backend gave no assembly.  The copy
** goes here; -1 when no process could be made. */
static pid_t dump_isa_fork(job *j, LLVMModuleRef copy) {
  strbuf what = {0};
  pid_t parent = getpid(), pid = fork();
  if (pid == 0) {
    isolate_child_fd = -1; /* an LLVM fatal error here is this process's, not the job's */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(2); /* the parent went before the signal was asked for */
    LLVMMemoryBufferRef buf = NULL;
    char *err = NULL;
    const char *name = isa_name(j, &what);
    if (!name || copy_isa_emit(j, copy, &buf, &err)) _exit(2);
    _exit(dump_write(j, name, LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), 0666) ? 1 : 0);
  }
  LLVMDisposeModule(copy);
  return pid;
}

/* A copy of the module for the ISA's emission: one whose use lists keep the module's
** order (src/passes.cpp), so that the backend, which walks them, emits the very code
** of the object, as -f asm prints it; LLVMCloneModule's copy reorders them, and its
** ISA could order some instructions otherwise (a build without src/passes.cpp; its
** dump says so, docs/cli.md). */
static LLVMModuleRef isa_module_copy(LLVMModuleRef m) {
#if GPUBLOB_LLVM_CXX
  LLVMModuleRef copy = gpublob__copy_module(m);
  if (copy) return copy;
#endif
  return LLVMCloneModule(m);
}

/* The emission gives an object (a bin of a target whose backend emits one): a copy
** of the module, taken before the object's emission changes it, gives the ISA. */
GPUBLOB_PRIVATE dump_isa_saved dump_isa_copy(job *j) {
  dump_isa_saved c = {NULL, 0};
  int object = j->format == GPUBLOB_FORMAT_BIN && j->t->emit == EMIT_obj;
  if (!j->dump.len || !object || !(c.mod = isa_module_copy(j->llvm->mod))) return c;
  if (j->t->isolate == ISOLATE_always && isolate_child_fd >= 0) {
    c.pid = dump_isa_fork(j, c.mod);
    c.mod = NULL;
  }
  return c;
}

/* The forked process's ISA (dump_isa_fork), waited for: a write that failed is IO,
** no assembly a warning. */
static int dump_forked_isa(job *j, pid_t pid, const char *what) {
  int st = 0;
  pid_t got;
  while (pid > 0 && (got = waitpid(pid, &st, 0)) < 0 && errno == EINTR) {}
  int code = pid > 0 && got == pid && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  if (code == 1) return handle_set_error(j->g, GPUBLOB_IO, "%s (%s:%s): cannot write %s in the dump directory", j->name,
                                  j->t->name, j->chip, what);
  if (code) warn_no_isa(j, what, pid < 0 ? "no process to emit it in" : NULL);
  return GPUBLOB_OK;
}

/* After emission (rc its outcome): the ISA, and the object where there is one; the
** copy dump_isa_copy took is disposed of here, or its process waited for. */
GPUBLOB_PRIVATE int dump_emitted(job *j, dump_isa_saved copy, int rc) {
  strbuf what = {0};
  int text = j->format == GPUBLOB_FORMAT_ASM || (j->format == GPUBLOB_FORMAT_BIN && j->t->emit == EMIT_asm);
  int has_copy = copy.mod || copy.pid;
  if (!rc && j->dump.len && text) sb_addf(&what, "3-isa%s", j->t->suffix_asm);
  else if (!rc && has_copy) sb_addf(&what, "3-object%s", tool_choice_needs_blob_tool(j) ? ".o" : j->t->suffix_bin);
  if (what.oom) rc = handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (!rc && what.len) rc = dump_write(j, sb_str(&what), j->out.data, j->out.size, 0666);
  sb_reset(&what);
  const char *isa = has_copy ? isa_name(j, &what) : NULL;
  if (copy.pid) {
    int forked = dump_forked_isa(j, copy.pid, isa ? isa : "its ISA");
    if (!rc) rc = isa ? forked : GPUBLOB_NOMEM;
  } else if (!rc && copy.mod) rc = isa ? dump_copy_isa(j, copy.mod, isa) : GPUBLOB_NOMEM;
  if (copy.mod) LLVMDisposeModule(copy.mod);
  sb_free(&what);
  return rc;
}

/* ---- the blob tool: its command line as a script, its log ---- */
/* One word for sh, in single quotes ('\'' for a quote in it). */
static void sh_word(strbuf *b, const char *w) {
  sb_add(b, " '");
  for (const char *q; (q = strchr(w, '\'')); w = q + 1) {
    sb_addn(b, w, (size_t)(q - w));
    sb_add(b, "'\\''");
  }
  sb_add(b, w);
  sb_add(b, "'");
}

/* "exec" and the words of argv, quoted, as a line of the script; "exit 1" for none
** (a program that was not found). */
GPUBLOB_PRIVATE void dump_sh_exec(strbuf *b, char *const *argv) {
  sb_add(b, argv ? "exec" : "exit 1");
  for (size_t i = 0; argv && argv[i]; i++) sh_word(b, argv[i]);
  sb_add(b, "\n");
}

/* "# WHAT with the options: A B C", a line of the script. */
GPUBLOB_PRIVATE void dump_sh_options(strbuf *b, const char *what, char *const *opts) {
  sb_addf(b, "# %s with the options:", what);
  for (size_t i = 0; opts && opts[i]; i++) sb_addf(b, " %s", opts[i]);
  sb_add(b, "\n");
}

/* The words of the job's blob tool as the spec makes them, with the dumped input
** (the ISA or the object) as {in} and the dump's 6-blob file as {out}. */
static char **dump_tool_argv(job *j, const char *tool, argvec *a) {
  workdir w = {0};
  dump_path(j, "", &w.in);
  sb_addf(&w.in, "%s%s", j->t->emit == EMIT_asm ? "3-isa" : "3-object", j->t->emit == EMIT_asm ? j->t->suffix_asm : ".o");
  dump_path(j, "", &w.out);
  sb_addf(&w.out, "6-blob%s", tool_blob_suffix(j));
  char **argv = w.in.oom || w.out.oom ? NULL : tool_build_argv(j, tool, &w, a);
  tool_workdir_free(&w);
  return argv;
}

/* 4-tool.sh, before the tool runs: the program's command line, or (in-process) the
** provider's options in a comment and the program's equivalent where it is found. */
GPUBLOB_PRIVATE int dump_tool_script(job *j) {
  if (!j->dump.len) return GPUBLOB_OK;
  strbuf sh = {0}, prog = {0};
  argvec a = {0}, popts = {0};
  sb_addf(&sh, "#!/bin/sh\n# gpublob %s: the blob tool of %s for %s:%s, reading the dumped %s and writing "
          "the blob beside it.\n", GPUBLOB_VERSION_STRING, j->name, j->t->name, j->chip,
          j->t->emit == EMIT_asm ? "ISA" : "object");
  const char *tool = j->tool;
  if (j->prov) {
    sb_addf(&prog, "The blob was made in-process by %s (%s)", j->t->provider_name, j->provider_path);
    dump_sh_options(&sh, sb_str(&prog), tool_template_argv(&popts, j, j->t->provider_argv, NULL, NULL, NULL));
    sb_reset(&prog);
    dump_find_quietly(j, search_find_tool_path, &prog); /* the program a provider's blob can be remade with */
    tool = sb_str(&prog);
    sb_addf(&sh, "# %s\n", *tool ? "The program's equivalent command line:" : "No program to run instead was found.");
  }
  char **argv = *tool ? dump_tool_argv(j, tool, &a) : NULL;
  dump_sh_exec(&sh, argv);
  int rc = sh.oom || (*tool && !argv) ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory")
                                      : dump_write(j, "4-tool.sh", sh.s, sh.len, 0777);
  tool_argv_free(&a);
  tool_argv_free(&popts);
  sb_free(&prog);
  sb_free(&sh);
  return rc;
}

/* 5-tool.log, after the tool (rc its outcome): its output, then a line of how it
** ended.  A failed tool's error stays the job's when the log cannot be written. */
GPUBLOB_PRIVATE int dump_tool_log(job *j, int rc) {
  if (!j->dump.len) return rc;
  strbuf log = {0}, kept = {0};
  const char *msg = gpublob_error_message(j->g);
  sb_add(&log, sb_str(&j->run.output));
  if (log.len && log.s[log.len - 1] != '\n') sb_add(&log, "\n");
  if (rc) sb_addf(&log, "# gpublob: %.*s\n", (int)strcspn(msg, "\n"), msg);
  else sb_addf(&log, "# gpublob: %s for %s:%s succeeded\n", j->tool_name, j->t->name, j->chip);
  if (rc) sb_add(&kept, msg);
  int wrc = log.oom ? handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory") : dump_write(j, "5-tool.log", log.s, log.len, 0666);
  if (rc && wrc) handle_set_error(j->g, rc, "%s", sb_str(&kept));
  sb_free(&kept);
  sb_free(&log);
  return rc ? rc : wrc;
}
