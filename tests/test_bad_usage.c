/* test_bad_usage: bad calls of the CLI: usage errors (exit 2), and input and output files (IO): a
** missing or endless input, inputs over --max-input, -o paths that cannot be written,
** ulimit -f; then -o onto a character device and onto a FIFO.  The harness and the
** invariants every case keeps: tests/bad.h */
#include "bad.h"

static const char ptx_kernel_bare[] =
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n  store i32 1, ptr addrspace(1) %p\n  ret void\n}\n";

static int gen_big_text(const char *path) { /* 2 KiB of comments before a fine kernel */
  FILE *f = fopen(path, "w");
  if (!f) return -1;
  write_repeat(f, "; padding padding padding padding padding padding padding padding\n", 32);
  fputs(OK_KERNEL, f);
  return fclose(f);
}

static int gen_sparse_1g(const char *path) { /* 1 GiB + 1 byte of holes, past the default 1G */
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) return -1;
  int rc = ftruncate(fd, (1LL << 30) + 1);
  return close(fd) | rc;
}

static int setup_dir_at_ptx(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/in.ptx", dir);
  return mkdir(p, 0755);
}

static int setup_full_device(const char *dir) {
  char p[4200];
  snprintf(p, sizeof p, "%s/full", dir);
  if (mknod(p, S_IFCHR | 0666, makedev(1, 7))) {
    snprintf(gen_why, sizeof gen_why, "cannot make a character device (mknod: %s)", strerror(errno));
    return -1;
  }
  return 0;
}

static const bad_case cases[] = {
    /* ---- usage errors: exit 2 ---- */
    {"usage: unknown option", "--bogus " NV, .exit = USAGE, .msg = "--bogus"},
    {"usage: -O4", "-O4 " NV, .exit = USAGE},
    {"usage: -O without a level", "-O " NV, .exit = USAGE},
    {"usage: -Ofast", "-Ofast " NV, .exit = USAGE},
    {"usage: -j 0", "-j 0 -f asm " NV, .exit = USAGE},
    {"usage: -j0", "-j0 -f asm " NV, .exit = USAGE},
    {"usage: -j -1", "-j -1 -f asm " NV, .exit = USAGE},
    {"usage: -j abc", "-j abc -f asm " NV, .exit = USAGE},
    {"usage: -j 100000", "-j 100000 -f asm " NV, .exit = USAGE},
    {"usage: --jobs without a value", "-o @OUT " NV " --jobs", .exit = USAGE},
    {"usage: --cache-size 0", "--cache-size 0 -f asm " NV, .exit = USAGE},
    {"usage: --cache-size 10X", "--cache-size 10X -f asm " NV, .exit = USAGE},
    {"usage: --cache-size -5", "--cache-size -5 -f asm " NV, .exit = USAGE},
    {"usage: --cache-size K", "--cache-size K -f asm " NV, .exit = USAGE},
    {"usage: --cache-size overflowing", "--cache-size 99999999999999999999G -f asm " NV, .exit = USAGE},
    {"usage: --tool-mode bogus", "--tool-mode bogus " NV, .exit = USAGE},
    {"usage: unknown format", "-f elf " NV, .exit = USAGE, .msg = "elf"},
    {"usage: format in capitals", "-f BIN " NV, .exit = USAGE},
    {"usage: --attach bogus", "--attach bogus " NV, .exit = USAGE},
    {"usage: two inputs", "-f asm " NV " " AM, .exit = USAGE},
    {"usage: no input", "-t nvptx -f asm", .exit = USAGE},
    {"usage: -t without a value", "-o @OUT " NV " -t", .exit = USAGE},
    {"usage: --features without a value", "-o @OUT " NV " --features", .exit = USAGE},
    {"usage: -o without a value", NV " -o", .exit = USAGE},
    {"usage: --pipeline without a value", "-o @OUT " NV " --pipeline", .exit = USAGE},
    {"usage: several outputs into one -o file", "-t nvptx:sm_80,sm_90 -f asm " NV, .exit = USAGE},
    {"usage: two -t into one -o file", "-t nvptx -t amdgcn -f asm " NV, .exit = USAGE},
    {"usage: several outputs to stdout", "-o - -t nvptx:sm_80,sm_90 -f asm " NV, .exit = USAGE},
    {"usage: --max-input not a size", "--max-input lots -f asm " NV, .exit = USAGE},
    {"usage: --max-input 5Q", "--max-input 5Q -f asm " NV, .exit = USAGE},
    {"usage: --max-input without a value", "-o @OUT " NV " --max-input", .exit = USAGE},
    {"usage: --tool-timeout -3", "--tool-timeout -3 -f asm " NV, .exit = USAGE},
    {"usage: --tool-timeout abc", "--tool-timeout abc -f asm " NV, .exit = USAGE},
    {"usage: --tool-timeout without a value", "-o @OUT " NV " --tool-timeout", .exit = USAGE},
    {"usage: --retarget takes no value", "--retarget=yes -f asm " NV, .exit = USAGE},

    /* ---- input and output: IO ---- */
    {"io: missing input", "-f asm tests/no-such-file.ll", .exit = E(IO), .msg = "no-such-file.ll"},
    {"io: input is a directory", "-f asm @D", .exit = E(IO)},
    {"io: endless input past --max-input", "--max-input 1M -f asm /dev/zero", .exit = E(IO), .limit = 10},
    {"io: input past --max-input 100", "--max-input 100 -f asm " NV, .exit = E(IO)},
    {"io: input past --max-input 1K", "--max-input 1K -f asm @IN", .gen = gen_big_text, .exit = E(IO)},
    {"io: stdin past --max-input 1K", "--max-input 1K -f asm @STDIN", .gen = gen_big_text, .exit = E(IO)},
    {"io: sparse 1 GiB + 1 input past the default limit", "-f asm @IN", .gen = gen_sparse_1g, .exit = E(IO),
     .limit = 30},
    {"io: -o into a missing directory", "-f asm -o @D/no/such/dir/out.ptx " NV, .exit = E(IO)},
    {"io: -o under a regular file", "-f asm -o @IN/x.ptx @IN", .text = ptx_kernel_bare, .exit = E(IO)},
    {"io: -o is the input", "-f asm -o @IN @IN", .text = NVT OK_KERNEL, .exit = E(IO)},
    {"io: output path (pattern) is a directory", "-f asm -o @D/{stem}.ptx @IN", .text = NVT OK_KERNEL,
     .exit = E(IO), .setup = setup_dir_at_ptx},
    {"io: output path (beside the input) is a directory", "-f asm @NOOUT @IN", .text = NVT OK_KERNEL,
     .exit = E(IO), .setup = setup_dir_at_ptx},
    {"io: -o into /proc", "-f asm -o /proc/gpublob-test.ptx " NV, .exit = E(IO)},
    {"io: -o onto a full device (ENOSPC)", "-f asm -o @D/full " NV, .exit = E(IO), .setup = setup_full_device},
    {"io: ulimit -f (SIGXFSZ), PTX", "-f asm " NV, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: ulimit -f (SIGXFSZ), amdgcn bitcode", "-t amdgcn -f llvm " AM, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: ulimit -f (SIGXFSZ), SPIR-V to stdout", "-t spirv -o - " SP, .exit = E(IO), .wrap = "ulimit -f 1"},
    {"io: two outputs on one path (pattern)", "-t nvptx:sm_80,sm_90 -f asm -o @D/same.ptx{suffix} " NV,
     .exit = E(IO)},
};

/* -o onto a character device writes into it and leaves it a device.  Not the real
** /dev/null: as root, a CLI that renames a temporary onto its output would replace
** the system's /dev/null; a device node of the same kind made here shows the same. */
static void test_device_output(void) {
  const char *tmp = fresh_dir("dev-tmp"), *dev = tmp_path("null-device");
  const char *name = "extra: -o onto a character device (as /dev/null) leaves it a character device";
  if (mknod(dev, S_IFCHR | 0666, makedev(1, 3))) {
    if (geteuid() == 0) {
      skip(name, "cannot mknod, and as root -o /dev/null could replace the real one");
      return;
    }
    dev = "/dev/null"; /* not root: the CLI cannot replace it */
  }
  const char *args[] = {"-f", "asm", "-o", dev, NV, NULL};
  outcome o = cli(args, tmp, 20);
  struct stat st;
  int is_chr = !stat(dev, &st) && S_ISCHR(st.st_mode);
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(o.rc == 0, PART("exit 0"), "exit %d: %s", o.rc, o.err);
  check(is_chr, name, "no longer a character device");
  check(leftovers(scratch(), "null-device.tmp-") == 0, PART("no temporary beside it"), "%d left",
        leftovers(scratch(), "null-device.tmp-"));
  check(dir_empty(tmp), PART("TMPDIR empty"), NULL);
#undef PART
  free(o.err);
  if (!is_chr && strcmp(dev, "/dev/null")) unlink(dev);
}

/* -o onto a FIFO writes into it: a reader at the other end gets the PTX. */
static void test_fifo_output(void) {
  const char *tmp = fresh_dir("fifo-tmp"), *fifo = tmp_path("out.fifo"), *got = tmp_path("fifo-got");
  const char *name = "extra: -o onto a FIFO writes into it (a reader gets the PTX; still a FIFO)";
  if (mkfifo(fifo, 0644)) {
    skip(name, "mkfifo failed");
    return;
  }
  pid_t reader = fork();
  if (reader == 0) {
    alarm(30);
    int in = open(fifo, O_RDONLY), out = open(got, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    char buf[4096];
    for (ssize_t r; in >= 0 && (r = read(in, buf, sizeof buf)) > 0;)
      if (write(out, buf, (size_t)r) != r) break;
    _exit(0);
  }
  const char *args[] = {"-f", "asm", "-o", fifo, NV, NULL};
  outcome o = cli(args, tmp, 15);
  struct stat st;
  int is_fifo = !stat(fifo, &st) && S_ISFIFO(st.st_mode);
  /* a reader still waiting (the FIFO was replaced) is let go */
  int wfd = is_fifo ? open(fifo, O_WRONLY | O_NONBLOCK) : -1;
  if (wfd >= 0) close(wfd);
  usleep(100000);
  kill(reader, SIGKILL);
  waitpid(reader, NULL, 0);
  char *ptx = (char *)slurp(got, NULL);
  char label[300];
#define PART(what) (snprintf(label, sizeof label, "%s: %s", name, what), label)
  check(o.rc == 0, PART("exit 0"), "exit %d: %s", o.rc, o.err);
  check(is_fifo, PART("still a FIFO"), NULL);
  check(contains(ptx, ".entry saxpy"), name, "reader got %zu bytes", ptx ? strlen(ptx) : 0);
  check(leftovers(scratch(), "out.fifo.tmp-") == 0, PART("no temporary beside it"), "%d left",
        leftovers(scratch(), "out.fifo.tmp-"));
#undef PART
  free(ptx);
  free(o.err);
}

int main(void) {
  if (bad_start()) return 2;
  run_table(cases, sizeof cases / sizeof *cases);
  test_device_output();
  test_fifo_output();
  return bad_end();
}
