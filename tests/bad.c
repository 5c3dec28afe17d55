/* tests/bad.c: the harness of the test_bad_* tests (tests/bad.h says what they check):
** the fake tools, a case run in a directory of its own and its verdict, the table on
** two workers, and the calls outside the table. */
#include "bad.h"

extern char **environ;

char gen_why[256];

int write_repeat(FILE *f, const char *s, long n) {
  for (long i = 0; i < n; i++)
    if (fputs(s, f) == EOF) return -1;
  return 0;
}

int put(const char *path, const unsigned char *p, size_t n) { return spill(path, p, n); }

/* Tools for --tool: written into scratch/tools at start.  Every one records its pid
** (and its children's) so that what a case leaves running is killed at the end. */
#define TOOL_HEAD                                                                       \
  "#!/bin/sh\nPIDS=${GPUBLOB_TEST_PIDS:-@PIDS}\necho $$ >> $PIDS\nout=; prev=\n"           \
  "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
/* An ELF identification byte for a tool's printf: "\\00N" of an <elf.h> value below 8. */
#define XSTR(x) #x
#define STR(x) XSTR(x)
#define EI(value) "\\00" STR(value)
#define DRAIN \
  "for a in \"$@\"; do case $a in /dev/fd/*) cat \"$a\" > /dev/null ;; -) cat > /dev/null ;; esac; done\n"
static const struct {
  const char *name, *body;
} tools[] = {
    {"exit1", TOOL_HEAD DRAIN "echo 'fake tool: refused' >&2\nexit 1\n"},
    {"segv", TOOL_HEAD DRAIN "kill -SEGV $$\nsleep 5\n"},
    {"sigkill", TOOL_HEAD DRAIN "kill -KILL $$\nsleep 5\n"},
    {"garbage", TOOL_HEAD DRAIN "echo 'this is not an ELF file' > \"$out\"\nexit 0\n"},
    {"badmagic", TOOL_HEAD DRAIN "printf '\\177ELG" EI(ELFCLASS32) EI(ELFDATA2LSB) EI(EV_CURRENT) EI(ELFOSABI_NONE)
                                 "\\000\\000\\000\\000' > \"$out\"\nexit 0\n"}, /* "ELG": the magic, wrong */
    {"empty", TOOL_HEAD DRAIN ": > \"$out\"\nexit 0\n"},
    /* an ELF magic and class, then garbage: a blob no reader takes */
    {"elf-garbage", TOOL_HEAD DRAIN "printf '\\177ELF" EI(ELFCLASS64) EI(ELFDATA2LSB) EI(EV_CURRENT)
                                    "' > \"$out\"\nhead -c 200 /dev/urandom >> \"$out\"\nexit 0\n"},
    /* the real tool's blob, for another chip: ld.lld's hsaco with another EF_AMDGPU_MACH, ptxas for
       sm_80 whatever the job's chip */
    {"ld.lld-other-chip", TOOL_HEAD LLVM_BINDIR "/ld.lld \"$@\" || exit 1\n"
                          "printf '\\100' | dd of=\"$out\" bs=1 seek=48 count=1 conv=notrunc 2>/dev/null\n"},
    {"ptxas-other-chip", TOOL_HEAD "sed 's/^[.]target sm_[0-9a-z]*/.target sm_80/' | "
                         "\"${PTXAS:-ptxas}\" -arch=sm_80 - -o \"$out\"\n"},
    {"nooutput", TOOL_HEAD DRAIN "exit 0\n"},
    {"elf-then-fail", TOOL_HEAD DRAIN "printf '\\177ELF" EI(ELFCLASS64) EI(ELFDATA2LSB) EI(EV_CURRENT)
                                      "' > \"$out\"\necho 'fake tool: failed late' >&2\nexit 1\n"},
    {"forever", TOOL_HEAD DRAIN "exec sleep 1000\n"},
    {"forever-noread", TOOL_HEAD "exec sleep 1000\n"},
    {"ignore-term", TOOL_HEAD DRAIN "trap '' TERM\nsleep 1000 &\necho $! >> $PIDS\nwait\nwait\n"},
    {"child-holds-stdout", TOOL_HEAD DRAIN "sleep 30 &\necho $! >> $PIDS\nexit 0\n"},
    {"child-holds-stderr-fail", TOOL_HEAD DRAIN "sleep 30 >&2 &\necho $! >> $PIDS\necho 'fake tool: failed' >&2\nexit 1\n"},
    {"setsid-child", TOOL_HEAD DRAIN "setsid sleep 30 &\necho $! >> $PIDS\nexit 0\n"},
    {"tmpdir-subdir", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\nmkdir -p \"$d/sub/deeper\" && echo x > \"$d/sub/deeper/f\"\nexit 1\n"},
    {"tmpxft", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\necho x > \"$d/tmpxft_0000beef_00000000-1_k.ptx\"\necho x > \"$d/tmpxft_0000beef_00000000-2_k.cubin\"\nexit 1\n"},
    {"tmpdir-other-output", TOOL_HEAD DRAIN "d=${TMPDIR:?no TMPDIR}\necho x > \"$d/elsewhere.o\"\nexit 0\n"},
    {"huge-stderr", TOOL_HEAD DRAIN "head -c 1048576 /dev/zero | tr '\\000' e >&2\nexit 1\n"},
    {"noread", TOOL_HEAD "exit 0\n"},
    {"noread-fail", TOOL_HEAD "exit 1\n"},
    {"closed-fds", TOOL_HEAD DRAIN "exec >&- 2>&-\nexit 3\n"},
    {"bad-shebang", "#!/nonexistent/interpreter\nexit 0\n"},
    {"noexec", NULL}, /* a file without the execute bit */
    /* not for the table: a good ld.lld run that leaves a child holding stdout */
    {"lld-child-holds-stdout",
     "#!/bin/sh\n" LLVM_BINDIR "/ld.lld \"$@\"\nrc=$?\nsleep 30 &\necho $! >> @PIDS\nexit $rc\n"},
    {"lld-record-tmpdir", "#!/bin/sh\necho \"$TMPDIR\" > @S/tool-tmpdir\n"
                          "[ -n \"$TMPDIR\" ] && mkdir -p \"$TMPDIR/made-by-tool\" && echo x > \"$TMPDIR/made-by-tool/f\"\n"
                          "exec " LLVM_BINDIR "/ld.lld \"$@\"\n"},
    {"slow", "#!/bin/sh\necho $$ >> @S/slow-pids\nsleep 30 &\necho $! >> @S/slow-pids\necho $! >> @PIDS\nwait\n"},
    /* pack programs, linked as clang-offload-bundler by make_lib_dirs: it names its output -output=FILE */
    {"bundler-exit1", "#!/bin/sh\necho $$ >> ${GPUBLOB_TEST_PIDS:-@PIDS}\necho 'fake bundler: refused' >&2\nexit 1\n"},
    {"bundler-garbage", "#!/bin/sh\necho $$ >> ${GPUBLOB_TEST_PIDS:-@PIDS}\n"
                        "for a in \"$@\"; do case $a in -output=*) echo 'not a bundle' > \"${a#-output=}\" ;; esac; done\n"},
};

/* ---- running one case ---- */
typedef struct verdict {
  int ran, skipped;
  int rc;       /* exit status; 128 + signal when killed */
  int hung;     /* killed by us after the limit */
  double secs;
  int err_first_ok, err_lines, msg_ok, input_changed;
  int tools_alive, tools_recorded; /* processes the fake tool recorded, still alive when the CLI ended */
  char first[320], extra[400], left[400], why[256];
} verdict;

static verdict *verdicts; /* shared with the workers */
static const bad_case *cases; /* run_table's */
static size_t ncases;
static int ptxas_found;
char tools_dir[4200];
static char pids_file[4200];

double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

static void append(char *buf, size_t size, const char *s) {
  size_t n = strlen(buf), m = strlen(s);
  if (n + m + 2 > size) return;
  if (n) buf[n++] = ' ';
  memcpy(buf + n, s, m + 1);
}

static int is_temp_name(const char *n) {
  return !strncmp(n, "gpublob-", 8) || strstr(n, ".tmp-") || !strncmp(n, "tmpxft", 6);
}

/* Everything under dir, as "relative/path" words, into buf. */
static void walk(const char *dir, const char *rel, char *buf, size_t size, int *count) {
  DIR *d = opendir(dir);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4400], r[1200];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    append(buf, size, r);
    (*count)++;
    struct stat st;
    if (!lstat(path, &st) && S_ISDIR(st.st_mode)) walk(path, r, buf, size, count);
  }
  if (d) closedir(d);
}

typedef struct entry {
  char name[256];
  mode_t type;
} entry;

static int snapshot(const char *dir, entry *list, int max) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  while (d && (e = readdir(d)) && n < max) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    char path[4400];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    snprintf(list[n].name, sizeof list[n].name, "%s", e->d_name);
    list[n++].type = lstat(path, &st) ? 0 : (st.st_mode & S_IFMT);
  }
  if (d) closedir(d);
  return n;
}

static char *expand(const char *w, const char *dir, const char *in) {
  char buf[8400];
  if (!strncmp(w, "@IN", 3)) snprintf(buf, sizeof buf, "%s%s", in, w + 3); /* @IN, @IN/x */
  else if (!strcmp(w, "@OUT")) snprintf(buf, sizeof buf, "%s/out.bin", dir);
  else if (!strcmp(w, "@D")) snprintf(buf, sizeof buf, "%s", dir);
  else if (!strncmp(w, "@D/", 3)) snprintf(buf, sizeof buf, "%s/%s", dir, w + 3);
  else if (!strncmp(w, "@S/", 3)) snprintf(buf, sizeof buf, "%s/%s", scratch(), w + 3);
  else if (!strcmp(w, "@STDIN")) snprintf(buf, sizeof buf, "-");
  else snprintf(buf, sizeof buf, "%s", w);
  return strdup(buf);
}

/* Runs argv with TMPDIR=tmpdir and stdin from stdin_path (or /dev/null), stdout and
** stderr into files; kills its process group after limit seconds. */
static int run_limited(char *const *argv, const char *tmpdir, const char *stdin_path, const char *out_path,
                       const char *err_path, double limit, int *hung, double *secs, const char *pids) {
  double t0 = now();
  pid_t pid = fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    setpgid(0, 0);
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(in, 0), dup2(out, 1), dup2(err, 2);
    if (tmpdir) setenv("TMPDIR", tmpdir, 1);
    if (pids) setenv("GPUBLOB_TEST_PIDS", pids, 1);
    unsetenv("GPUBLOB_CACHE_DIR");
    execv(argv[0], argv);
    _exit(127);
  }
  setpgid(pid, pid);
  int status = 0;
  *hung = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) return -1;
    if (now() - t0 > limit) {
      *hung = 1;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    usleep(5000);
  }
  kill(-pid, SIGKILL); /* what the CLI left in its own process group */
  *secs = now() - t0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int alive(long pid) { /* a process, not a zombie */
  char p[64], st[512] = "";
  snprintf(p, sizeof p, "/proc/%ld/stat", pid);
  FILE *s = fopen(p, "r");
  if (!s) return 0;
  size_t n = fread(st, 1, sizeof st - 1, s);
  fclose(s);
  st[n] = 0;
  char *paren = strrchr(st, ')');
  return paren && paren[1] && paren[2] != 'Z';
}

/* Processes listed in file still alive; *recorded: how many were listed. */
static int alive_in(const char *file, int *recorded) {
  FILE *f = fopen(file, "r");
  long pid;
  int n = 0;
  *recorded = 0;
  while (f && fscanf(f, "%ld", &pid) == 1) {
    (*recorded)++;
    n += alive(pid);
  }
  if (f) fclose(f);
  return n;
}

/* Kill what the fake tools left running: only pids that are still a sleep or a sh. */
void kill_strays(const char *file) {
  FILE *f = fopen(file, "r");
  long pid;
  while (f && fscanf(f, "%ld", &pid) == 1) {
    char p[64], cmd[256] = "";
    snprintf(p, sizeof p, "/proc/%ld/cmdline", pid);
    FILE *c = fopen(p, "r");
    if (!c) continue;
    size_t n = fread(cmd, 1, sizeof cmd - 1, c);
    fclose(c);
    cmd[n] = 0;
    if (strstr(cmd, "sleep") || strstr(cmd, "sh")) kill((pid_t)pid, SIGKILL);
  }
  if (f) fclose(f);
}

static int bitcode_accepted(const char *path) {
  const char *argv[] = {LLVM_DIS, path, "-o", "/dev/null", NULL};
  return run(argv, NULL) == 0;
}

/* A build without MLIR (configure --without-mlir) answers an MLIR case NOMLIR, with
** its own message: the case's invariants still hold, and that code stands for its own. */
static int nomlir_answer(const bad_case *c, int rc) {
  return !gpublob_mlir_enabled() && !strncmp(c->name, "mlir: ", 6) && rc == E(NOMLIR);
}

static void run_case(size_t i, verdict *v) {
  const bad_case *c = &cases[i];
  char dir[4200], tmp[4300], in[4300], outf[4300], errf[4300];
  snprintf(dir, sizeof dir, "%s/case%03zu", scratch(), i);
  snprintf(tmp, sizeof tmp, "%s/tmp", dir);
  snprintf(in, sizeof in, "%s/in%s", dir, c->sfx ? c->sfx : ".ll");
  snprintf(outf, sizeof outf, "%s/stdout-%03zu", scratch(), i);
  snprintf(errf, sizeof errf, "%s/stderr-%03zu", scratch(), i);
  mkdir(dir, 0755);
  mkdir(tmp, 0755);
  gen_why[0] = 0;
  int prep = 0;
  if (c->text) prep = spill(in, c->text, strlen(c->text));
  else if (c->gen) prep = c->gen(in);
  if (!prep && c->setup) prep = c->setup(dir);
  if (prep) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "%s", *gen_why ? gen_why : "could not write the input");
    return;
  }
  if (c->needs_ptxas && !ptxas_found) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "CUDA toolkit (ptxas) not found");
    return;
  }
  if ((c->needs_rocm || (strstr(c->args, AM) && (c->exit == E(TOOL) || c->exit == E(LINK) || c->exit == E(IO)))) &&
      !have_rocm_bitcode()) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "ROCm's device libraries not found (ocml.bc in '%s')", ROCM_BITCODE);
    return;
  }
  if (c->needs_ld_lld && !have_program(LD_LLD)) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "the ld.lld program not found (lld-22)");
    return;
  }
  if (c->bitcode_check && bitcode_accepted(in)) {
    v->skipped = 1;
    snprintf(v->why, sizeof v->why, "llvm-dis accepts this mutation: not a bad input");
    return;
  }
  size_t in_n = 0;
  unsigned char *in_before = (c->text || c->gen) ? slurp(in, &in_n) : NULL;
  entry before[64];
  int nbefore = snapshot(dir, before, 64);

  char *argv[128];
  int n = 0, has_o = 0, stdin_in = 0, no_out = 0;
  if (c->wrap) {
    static char script[512];
    snprintf(script, sizeof script, "%s; exec \"$0\" \"$@\"", c->wrap);
    argv[n++] = strdup("/bin/sh");
    argv[n++] = strdup("-c");
    argv[n++] = strdup(script);
  }
  argv[n++] = strdup(CLI);
  argv[n++] = strdup("--no-cache");
  char *words = strdup(c->args);
  for (char *save, *w = strtok_r(words, " ", &save); w && n < 120; w = strtok_r(NULL, " ", &save)) {
    if (!strcmp(w, "@NOOUT")) {
      no_out = 1;
      continue;
    }
    if (!strcmp(w, "-o")) has_o = 1;
    if (!strcmp(w, "@STDIN")) stdin_in = 1;
    argv[n++] = expand(w, dir, in);
  }
  free(words);
  if (!has_o && !no_out) {
    argv[n++] = strdup("-o");
    argv[n++] = expand("@OUT", dir, in);
  }
  argv[n] = NULL;
  char pids[4300];
  snprintf(pids, sizeof pids, "%s/pids-%03zu", scratch(), i);
  v->rc = run_limited(argv, tmp, stdin_in ? in : NULL, outf, errf, c->limit > 0 ? c->limit : 20, &v->hung,
                      &v->secs, pids);
  usleep(c->tools_dead ? 200000 : 0); /* a killed group's last member may still be on its way out */
  v->tools_alive = alive_in(pids, &v->tools_recorded);
  kill_strays(pids);
  for (int k = 0; k < n; k++) free(argv[k]);
  v->ran = 1;

  /* stderr */
  size_t en = 0;
  char *err = (char *)slurp(errf, &en);
  if (!err) err = strdup("");
  const char *nl = strchr(err, '\n');
  snprintf(v->first, sizeof v->first, "%.*s", (int)(nl ? nl - err : (long)strlen(err)), err);
  v->err_first_ok = !strncmp(err, "gpublob: error: ", 16);
  v->err_lines = 0;
  for (const char *p = err; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
    if (!strncmp(p, "gpublob: error:", 15)) v->err_lines++;
  v->msg_ok = !c->msg || contains(err, c->msg) || nomlir_answer(c, v->rc);
  free(err);

  /* the case's directory: only what was there before, unchanged */
  entry after[64];
  int nafter = snapshot(dir, after, 64);
  for (int a = 0; a < nafter; a++) {
    int found = -1;
    for (int b = 0; b < nbefore; b++)
      if (!strcmp(after[a].name, before[b].name)) found = b;
    if (!strcmp(after[a].name, "tmp")) continue;
    if (found < 0) append(is_temp_name(after[a].name) ? v->left : v->extra, sizeof v->extra, after[a].name);
    else if (after[a].type != before[found].type) {
      char what[sizeof before[0].name + 32];
      snprintf(what, sizeof what, "%.200s(replaced:type-changed)", after[a].name);
      append(v->extra, sizeof v->extra, what);
    }
  }
  for (int b = 0; b < nbefore; b++) {
    int found = 0;
    for (int a = 0; a < nafter; a++) found |= !strcmp(after[a].name, before[b].name);
    if (!found) {
      char what[sizeof before[0].name + 32];
      snprintf(what, sizeof what, "%.200s(removed)", before[b].name);
      append(v->extra, sizeof v->extra, what);
    }
  }
  int count = 0;
  char inside[400] = "";
  walk(tmp, "", inside, sizeof inside, &count);
  if (count) {
    char what[420];
    snprintf(what, sizeof what, "TMPDIR:[%s]", inside);
    append(v->left, sizeof v->left, what);
  }
  if (in_before) {
    size_t now_n = 0;
    unsigned char *in_now = slurp(in, &now_n);
    v->input_changed = !in_now || now_n != in_n || memcmp(in_now, in_before, in_n);
    free(in_now);
    free(in_before);
  }
}

/* ---- fixtures ---- */
static void write_tools(void) {
  snprintf(tools_dir, sizeof tools_dir, "%s/tools", scratch());
  snprintf(pids_file, sizeof pids_file, "%s/pids", scratch());
  mkdir(tools_dir, 0755);
  for (size_t i = 0; i < sizeof tools / sizeof *tools; i++) {
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", tools_dir, tools[i].name);
    const char *body = tools[i].body ? tools[i].body : "#!/bin/sh\nexit 0\n";
    /* @PIDS and @S in a body: the pids file, the scratch directory */
    char text[8192];
    size_t n = 0;
    for (const char *p = body; *p && n + 4200 < sizeof text;) {
      const char *with = !strncmp(p, "@PIDS", 5) ? pids_file : !strncmp(p, "@S", 2) ? scratch() : NULL;
      if (with) {
        n += (size_t)snprintf(text + n, sizeof text - n, "%s", with);
        p += with == pids_file ? 5 : 2;
      } else text[n++] = *p++;
    }
    text[n] = 0;
    spill(path, text, strlen(text));
    chmod(path, tools[i].body ? 0755 : 0644);
  }
}

static void make_lib_dirs(void) {
  const char *dirs[] = {"bad-ocml", "empty-ocml", "bad-libdevice", "ptxas-only", "lld-only", "bundler-exit1",
                        "bundler-garbage", "only-ocml"};
  char path[4400], target[4400];
  for (int i = 0; i < 8; i++) {
    snprintf(path, sizeof path, "%s/%s", scratch(), dirs[i]);
    mkdir(path, 0755);
  }
  DIR *d = opendir(ROCM_BC);
  struct dirent *e;
  while (d && (e = readdir(d))) {
    if (!strstr(e->d_name, ".bc") || !strcmp(e->d_name, "ocml.bc")) continue;
    snprintf(target, sizeof target, "%s/%s", ROCM_BC, e->d_name);
    for (int i = 0; i < 2; i++) {
      snprintf(path, sizeof path, "%s/%s/%s", scratch(), dirs[i], e->d_name);
      if (symlink(target, path)) {}
    }
  }
  if (d) closedir(d);
  snprintf(path, sizeof path, "%s/only-ocml/ocml.bc", scratch());
  if (symlink(ROCM_BC "/ocml.bc", path)) {}
  snprintf(path, sizeof path, "%s/bad-ocml/ocml.bc", scratch());
  spill(path, "BC\xc0\xde garbage, not a library", sizeof "BC\xc0\xde garbage, not a library" - 1);
  snprintf(path, sizeof path, "%s/empty-ocml/ocml.bc", scratch());
  spill(path, "", 0);
  snprintf(path, sizeof path, "%s/bad-libdevice/libdevice.10.bc", scratch());
  spill(path, "BC\xc0\xde garbage, not libdevice", 28);
  snprintf(path, sizeof path, "%s/lld-only/ld.lld", scratch());
  if (symlink(LLVM_BINDIR "/ld.lld", path)) {}
  for (int i = 5; i < 7; i++) { /* a pack program of that name, as the spec's pack_tool names it */
    snprintf(target, sizeof target, "%s/%s", tools_dir, dirs[i]);
    snprintf(path, sizeof path, "%s/%s/clang-offload-bundler", scratch(), dirs[i]);
    if (symlink(target, path)) {}
  }
  gpublob *g;
  char ptxas[4096];
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
  if (!gpublob_open(&g)) {
    if (!tool_path(g, &o, ptxas, sizeof ptxas)) {
      snprintf(path, sizeof path, "%s/ptxas-only/ptxas", scratch());
      if (symlink(ptxas, path)) {}
    }
    gpublob_close(g);
  }
}

/* ---- the table, on two workers, then the checks in order ---- */
void run_table(const bad_case *table, size_t n) {
  cases = table;
  ncases = n;
  verdicts = mmap(NULL, ncases * sizeof *verdicts, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (verdicts == MAP_FAILED) {
    perror("mmap");
    exit(2);
  }
  memset(verdicts, 0, ncases * sizeof *verdicts);
  const int workers = 2;
  pid_t pids[2];
  double t0 = now();
  for (int w = 0; w < workers; w++) {
    if ((pids[w] = fork()) == 0) {
      for (size_t i = (size_t)w; i < ncases; i += (size_t)workers) run_case(i, &verdicts[i]);
      _exit(0);
    }
  }
  for (int w = 0; w < workers; w++) waitpid(pids[w], NULL, 0);
  double wall = now() - t0;

  char crash[8192] = "", hang[8192] = "", wrong[16384] = "", extra[8192] = "", left[8192] = "",
       stderr_fmt[8192] = "", msgs[8192] = "", strays[4096] = "";
  int ran = 0, skipped = 0, inv_ok = 0, code_ok = 0, all_ok = 0;
  int verbose = getenv("TEST_BAD_VERBOSE") != NULL; /* every case's exit, time and first line */
  for (size_t i = 0; i < ncases; i++) {
    const bad_case *c = &cases[i];
    verdict *v = &verdicts[i];
    char name[400], quoted[420];
    snprintf(quoted, sizeof quoted, "'%s'", c->name);
    if (v->skipped || !v->ran) {
      snprintf(name, sizeof name, "bad %s", c->name);
      skip(name, v->skipped ? v->why : "did not run");
      skipped++;
      continue;
    }
    ran++;
    int crashed = v->rc >= 128 || v->rc < 0, stderr_ok = v->err_first_ok && v->err_lines == 1;
    int tools_ok = !c->tools_dead || v->tools_alive == 0; /* that the tool ran at all, the code shows */
    int inv = !crashed && !v->hung && v->rc >= 1 && stderr_ok && !*v->extra && !*v->left && !v->input_changed &&
              tools_ok;
    int code = v->rc == c->exit || (c->alt && v->rc == c->alt) || nomlir_answer(c, v->rc);
#define INVARIANT(what) snprintf(name, sizeof name, "bad[invariant: %s] %s", what, c->name)
    INVARIANT("exit 1-127");
    check(v->rc >= 1 && v->rc <= 127, name, "exit %d%s%s (%.1f s): %s", v->rc, crashed && !v->hung ? " CRASH" : "",
          v->hung ? " HANG (killed)" : "", v->secs, v->first);
    INVARIANT("finishes");
    check(!v->hung, name, "HANG: killed after %.1f s (exit %d)", v->secs, v->rc);
    INVARIANT("error first");
    check(v->err_first_ok, name, "exit %d; stderr first line '%s'", v->rc, v->first);
    INVARIANT("one error line");
    check(v->err_lines == 1, name, "exit %d; %d error lines; first '%s'", v->rc, v->err_lines, v->first);
    INVARIANT("no output");
    check(!*v->extra, name, "exit %d; extra [%s]", v->rc, v->extra);
    INVARIANT("input unchanged");
    check(!v->input_changed, name, "exit %d; the input was changed", v->rc);
    INVARIANT("no temporary");
    check(!*v->left, name, "exit %d; left [%s]", v->rc, v->left);
    if (c->tools_dead) {
      INVARIANT("tools gone");
      check(v->tools_alive == 0, name, "exit %d; %d of the %d tool processes it recorded still alive", v->rc,
            v->tools_alive, v->tools_recorded);
    }
#undef INVARIANT
    snprintf(name, sizeof name, "bad[code] %s", c->name);
    char alt[32] = "";
    if (c->alt) snprintf(alt, sizeof alt, " or %d", c->alt);
    check(code, name, "exit %d, want %d%s: %s", v->rc, c->exit, alt, v->first);
    if (c->msg) {
      snprintf(name, sizeof name, "bad[msg] %s", c->name);
      check(v->msg_ok, name, "stderr lacks '%s': %s", c->msg, v->first);
      if (!v->msg_ok) append(msgs, sizeof msgs, quoted);
    }
    if (verbose) printf("case %-70s exit %3d %5.2f s  %s\n", c->name, v->rc, v->secs, v->first);
    inv_ok += inv;
    code_ok += code;
    all_ok += inv && code && v->msg_ok;
    char item[600];
    if (v->hung) append(hang, sizeof hang, quoted);
    else if (crashed) {
      snprintf(item, sizeof item, "%s(%d)", quoted, v->rc);
      append(crash, sizeof crash, item);
    } else if (!code) {
      snprintf(item, sizeof item, "%s(%d!=%d)", quoted, v->rc, c->exit);
      append(wrong, sizeof wrong, item);
    }
    if (*v->extra || v->input_changed) append(extra, sizeof extra, quoted);
    if (*v->left) append(left, sizeof left, quoted);
    if (!tools_ok) append(strays, sizeof strays, quoted);
    if (!stderr_ok && !crashed && !v->hung) append(stderr_fmt, sizeof stderr_fmt, quoted);
  }
  printf("summary: %zu cases, %d ran, %d skipped, %.1f s on %d workers\n", ncases, ran, skipped, wall, workers);
  printf("summary: %d keep the invariant, %d get the expected code, %d pass entirely\n", inv_ok, code_ok, all_ok);
  printf("summary: crash (exit >= 128): %s\n", *crash ? crash : "none");
  printf("summary: hang: %s\n", *hang ? hang : "none");
  printf("summary: wrong code: %s\n", *wrong ? wrong : "none");
  printf("summary: extra output: %s\n", *extra ? extra : "none");
  printf("summary: leftover files: %s\n", *left ? left : "none");
  printf("summary: tool processes left running: %s\n", *strays ? strays : "none");
  printf("summary: stderr not one 'gpublob: error:' line first: %s\n", *stderr_fmt ? stderr_fmt : "none");
  printf("summary: message lacks its part: %s\n", *msgs ? msgs : "none");
}

/* ---- calls outside the table ---- */
outcome cli(const char *const *args, const char *tmpdir, double limit) {
  char *argv[64];
  int n = 0;
  argv[n++] = CLI;
  argv[n++] = "--no-cache";
  for (; *args && n < 62; args++) argv[n++] = (char *)*args;
  argv[n] = NULL;
  outcome o = {0};
  const char *outf = tmp_path("extra-stdout"), *errf = tmp_path("extra-stderr");
  o.rc = run_limited(argv, tmpdir, NULL, outf, errf, limit, &o.hung, &o.secs, NULL);
  o.err = (char *)slurp(errf, NULL);
  if (!o.err) o.err = strdup("");
  return o;
}

const char *fresh_dir(const char *name) {
  const char *p = tmp_path(name);
  mkdir(p, 0755);
  return p;
}

int dir_empty(const char *dir) {
  int count = 0;
  char buf[400] = "";
  walk(dir, "", buf, sizeof buf, &count);
  return count == 0;
}

int bad_start(void) {
  if (!exists(CLI)) {
    printf("%s not built\n", CLI);
    return -1;
  }
  signal(SIGPIPE, SIG_IGN);
  write_tools();
  make_lib_dirs();
  ptxas_found = have_ptxas();
  if (ptxas_found) { /* for the fake tool that runs the real ptxas for another chip */
    gpublob *pg;
    char path[4096] = "";
    gpublob_options po = {.version = GPUBLOB_OPTIONS_VERSION, .target = "nvptx"};
    if (!gpublob_open(&pg)) {
      if (!tool_path(pg, &po, path, sizeof path) && *path) setenv("PTXAS", path, 1);
      gpublob_close(pg);
    }
  }
  return 0;
}

int bad_end(void) {
  kill_strays(pids_file);
  return report();
}
