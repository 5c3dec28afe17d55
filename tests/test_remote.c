/* test_remote: the cache's remote tier against a real Redis server.  Each test starts
** its own redis-server on a free loopback port (or a unix socket in the scratch
** directory) and stops it.  Two cache directories ("machines") share blobs and the
** second compiles nothing (the front answers, with no compiler beside it); values
** overwritten with garbage, cut short or under another key are recomputed, never
** served, and overwritten; a server killed between calls, and a listener that never
** answers, cost at most one timeout and one warning; a password (from the
** environment; a wrong one is a warning); read-only stores nothing; a file over the
** size limit is not stored; eight processes at once.  Without hiredis the tier is
** compiled out: a URL is one warning, and the server tests say skipped. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_REMOTE
#define GPUBLOB_REMOTE 0
#endif
#if GPUBLOB_REMOTE
#include <hiredis/hiredis.h>
#endif

#define IN "examples/saxpy_amdgcn.ll"

/* How many lines of s contain needle. */
static int count_lines(const char *s, const char *needle) {
  int n = 0;
  for (const char *p = s; p && (p = strstr(p, needle)); p += strlen(needle)) n++;
  return n;
}

/* A fresh "machine": a cache directory of its own, never used before. */
static const char *machine(void) {
  static int n;
  char name[32];
  snprintf(name, sizeof name, "machine%d", n++);
  return tmp_path(name);
}

#if GPUBLOB_REMOTE
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* The CLI's run, and its exit status; never a signal's (>= 128). */
static int cli(const char *const *argv, char **log) {
  int rc = run(argv, log);
  check(rc >= 0 && rc < 128, "no exit status from a signal", "%s: %d\n%s", argv[0], rc, log ? shown(*log) : "");
  return rc;
}

/* Two files, byte for byte the same. */
static int same_file(const char *a, const char *b) {
  size_t na, nb;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
}

/* ---- servers: each test's own, killed with this process if it dies ---- */
typedef struct server {
  pid_t pid;
  int port;
  char url[300];
} server;

static pid_t live[32];

static void stop_pid(pid_t pid) {
  kill(pid, SIGTERM);
  for (int i = 0; i < 200; i++) { /* 2 s, then SIGKILL */
    if (waitpid(pid, NULL, WNOHANG) == pid) return;
    usleep(10000);
  }
  kill(pid, SIGKILL);
  waitpid(pid, NULL, 0);
}

static void stop_all(void) {
  for (int i = 0; i < 32; i++)
    if (live[i] > 0) {
      stop_pid(live[i]);
      live[i] = 0;
    }
}

static int free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t n = sizeof a;
  int port = fd >= 0 && !bind(fd, (struct sockaddr *)&a, sizeof a) && !getsockname(fd, (struct sockaddr *)&a, &n)
                 ? ntohs(a.sin_port) : -1;
  if (fd >= 0) close(fd);
  return port;
}

static redisContext *client(const server *s) {
  struct timeval tv = {1, 0};
  redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
  if (c && !c->err) redisSetTimeout(c, tv);
  return c;
}

/* A redis-server on a free loopback port (unix: also on a socket, whose URL is then
** s->url), with the extra words given; 0 once it answers, -1 after 5 s. */
static int server_spawn(server *s, const char *unix_sock, const char *const *extra) {
  memset(s, 0, sizeof *s);
  if ((s->port = free_port()) < 0) return -1;
  char port[16];
  snprintf(port, sizeof port, "%d", s->port);
  const char *argv[32] = {REDIS_SERVER, "--port", port, "--bind", "127.0.0.1", "--save", "",
                          "--appendonly", "no", "--dir", scratch(), "--loglevel", "warning"};
  int n = 13;
  if (unix_sock) {
    argv[n++] = "--unixsocket";
    argv[n++] = unix_sock;
  }
  for (int i = 0; extra && extra[i] && n < 30; i++) argv[n++] = extra[i];
  argv[n] = NULL;
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(REDIS_SERVER, (char *const *)argv);
    _exit(127);
  }
  if (pid < 0) return -1;
  s->pid = pid;
  for (int i = 0; i < 32; i++)
    if (!live[i]) {
      live[i] = pid;
      break;
    }
  if (unix_sock) snprintf(s->url, sizeof s->url, "unix://%s", unix_sock);
  else snprintf(s->url, sizeof s->url, "redis://127.0.0.1:%d", s->port);
  for (int i = 0; i < 250; i++) {
    redisContext *c = client(s);
    int up = c && !c->err;
    if (c) redisFree(c);
    if (up) return 0;
    if (waitpid(pid, NULL, WNOHANG) == pid) break;
    usleep(20000);
  }
  return -1;
}

/* server_spawn, and a check of the test named that it started. */
static int server_start(server *s, const char *test, const char *unix_sock, const char *const *extra) {
  int rc = server_spawn(s, unix_sock, extra);
  check(!rc, "redis-server starts", "%s: port %d", test, s->port);
  return rc;
}

static void server_stop(server *s) {
  for (int i = 0; i < 32; i++)
    if (live[i] == s->pid) live[i] = 0;
  if (s->pid > 0) stop_pid(s->pid);
  s->pid = 0;
}

/* A command's integer reply (DBSIZE), or -1. */
static long long redis_int(const server *s, const char *password, const char *cmd) {
  redisContext *c = client(s);
  long long v = -1;
  if (c && !c->err && password) freeReplyObject(redisCommand(c, "AUTH %s", password));
  redisReply *r = c && !c->err ? redisCommand(c, cmd) : NULL;
  if (r && r->type == REDIS_REPLY_INTEGER) v = r->integer;
  if (r) freeReplyObject(r);
  if (c) redisFree(c);
  return v;
}

/* The server's keys, and their values, into arrays (malloc'd); their count. */
static size_t redis_dump(const server *s, char ***keys, char ***vals, size_t **lens) {
  redisContext *c = client(s);
  redisReply *r = c && !c->err ? redisCommand(c, "KEYS gpublob:*") : NULL;
  size_t n = r && r->type == REDIS_REPLY_ARRAY ? r->elements : 0;
  *keys = calloc(n + 1, sizeof **keys);
  *vals = calloc(n + 1, sizeof **vals);
  *lens = calloc(n + 1, sizeof **lens);
  for (size_t i = 0; i < n; i++) {
    (*keys)[i] = strdup(r->element[i]->str);
    redisReply *v = redisCommand(c, "GET %s", (*keys)[i]);
    if (v && v->type == REDIS_REPLY_STRING) {
      (*vals)[i] = malloc(v->len + 1);
      memcpy((*vals)[i], v->str, v->len);
      (*lens)[i] = v->len;
    }
    if (v) freeReplyObject(v);
  }
  if (r) freeReplyObject(r);
  if (c) redisFree(c);
  return n;
}

static void dump_free(size_t n, char **keys, char **vals, size_t *lens) {
  for (size_t i = 0; i < n; i++) {
    free(keys[i]);
    free(vals[i]);
  }
  free(keys);
  free(vals);
  free(lens);
}

static void redis_set(const server *s, const char *key, const void *v, size_t n) {
  redisContext *c = client(s);
  redisReply *r = c && !c->err ? redisCommand(c, "SET %s %b", key, v, n) : NULL;
  if (r) freeReplyObject(r);
  if (c) redisFree(c);
}

/* A working server's calls get a long timeout (HIT_TIMEOUT): the default 50 ms is for a
** farm's quiet network, and a loaded 2-core machine running eight compiles at once
** (test_eight) can miss it, which would make a hit a miss and add a warning.  The
** fault cases (a dead server, a refusing port, a hung listener) keep their own. */
#define HIT_TIMEOUT "5000"
/* A compile by the CLI (the front, then the compiler on a miss) into out, with --time. */
static int compile(const char *dir, const char *url, const char *out, const char *extra, char **log) {
  const char *argv[18] = {"build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", dir, "-t",
                          "amdgcn:gfx90a", IN, "-o", out};
  int n = 11;
  if (url) {
    argv[n++] = "--remote-cache";
    argv[n++] = url;
  }
  if (extra) argv[n++] = extra;
  argv[n] = NULL;
  return cli(argv, log);
}

/* The reference output, compiled without any cache. */
static const char *reference(void) {
  static char path[4200];
  if (!*path) {
    snprintf(path, sizeof path, "%s", tmp_path("reference.hsaco"));
    const char *argv[] = {"build/gpublob-compiler", "--no-cache", "-t", "amdgcn:gfx90a", IN, "-o", path, NULL};
    char *log = NULL;
    check(cli(argv, &log) == 0, "reference: compiles", "%s", shown(log));
    free(log);
  }
  return path;
}

/* Two machines share: the second's call is answered by the front from the server,
** with no compiler beside it (a miss would fail), and its own cache is filled. */
/* The bytes gpublob_cache_lookup_stream hands on, collected; fail: refuse them. */
typedef struct collected {
  unsigned char *p;
  size_t n;
  int fail;
} collected;

static int collect(void *ctx, const void *bytes, size_t size) {
  collected *c = ctx;
  unsigned char *p = c->fail ? NULL : realloc(c->p, c->n + size + 1);
  if (!p) return -1;
  memcpy(p + c->n, bytes, size);
  c->p = p;
  c->n += size;
  return 0;
}

/* Whether the output's bytes match the reference compile. */
static int same_bytes(const collected *c) {
  size_t n;
  unsigned char *want = slurp(reference(), &n);
  int same = want && n == c->n && !memcmp(want, c->p, n);
  free(want);
  return same;
}

/* A streamed lookup from the server (the local cache has no entry, or a corrupt
** one): the same bytes; a write that fails there is IO, with no output. */
static void stream_remote(gpublob *g, gpublob_options *o, const gpublob_input *in) {
  gpublob_result r;
  collected c = {0};
  o->cache_dir = machine();
  int rc = gpublob_cache_lookup_stream(g, o, in, &r, collect, &c);
  check(rc == GPUBLOB_OK && r.count == 1 && same_bytes(&c), "shared: gpublob_cache_lookup_stream from the server",
        "rc %d, %zu bytes: %s", rc, c.n, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  free(c.p);
  c = (collected){.fail = 1};
  o->cache_dir = machine();
  rc = gpublob_cache_lookup_stream(g, o, in, &r, collect, &c);
  check(rc == GPUBLOB_IO && r.count == 0, "shared: gpublob_cache_lookup_stream from the server, its write failing: IO",
        "rc %d, %zu outputs", rc, r.count);
  char cmd[9000];
  snprintf(cmd, sizeof cmd, "for f in %s/v3/*/*.e; do printf X | dd of=$f bs=1 seek=0 conv=notrunc 2>/dev/null; done",
           o->cache_dir);
  int spoiled = system(cmd) == 0; /* the local entry's magic: a corrupt header */
  c = (collected){0};
  rc = gpublob_cache_lookup_stream(g, o, in, &r, collect, &c);
  check_if(spoiled, rc == GPUBLOB_OK && r.count == 1 && same_bytes(&c),
           "shared: gpublob_cache_lookup_stream past a corrupt local entry asks the server", "rc %d, %zu bytes: %s",
           rc, c.n, gpublob_error_message(g));
  if (!rc) gpublob_result_free(&r);
  free(c.p);
}

static void test_shared(void) {
#define T "shared"
  server s;
  if (server_start(&s, T, NULL, NULL)) return;
  const char *a = machine(), *b = machine();
  char *log = NULL;
  int rc = compile(a, s.url, tmp_path("a.hsaco"), NULL, &log);
  check(rc == 0 && same_file(tmp_path("a.hsaco"), reference()), T ": the first machine compiles", "%s", shown(log));
  check(contains(log, "remote cache 0 hits, 1 misses, 2 stored"), T ": it stores its manifest and entry", "%s",
        shown(log));
  check(redis_int(&s, NULL, "DBSIZE") == 2, T ": the server holds two files (no file digest)", "%lld",
        redis_int(&s, NULL, "DBSIZE"));
  free(log);
  /* the front alone, in a directory without gpublob-compiler: only a hit can succeed */
  const char *alone = tmp_path("alone");
  mkdir(alone, 0700);
  char front[4300];
  snprintf(front, sizeof front, "%s/gpublob", alone);
  size_t n;
  unsigned char *bytes = slurp("build/gpublob", &n);
  check(bytes && !spill(front, bytes, n) && !chmod(front, 0755), T ": the front copied alone", "%s", front);
  free(bytes);
  const char *argv[] = {front, "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", b, "--remote-cache", s.url,
                        "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("b.hsaco"), NULL};
  rc = cli(argv, &log);
  check(rc == 0 && same_file(tmp_path("b.hsaco"), reference()), T ": the second machine gets the same bytes",
        "exit %d\n%s", rc, shown(log));
  check(contains(log, "time (front)") && contains(log, "remote cache 2 hits, 0 misses, 0 stored"),
        T ": the front answers from the server: nothing compiled", "%s", shown(log));
  free(log);
  /* the second machine's own cache was filled: a hit with the server gone */
  server_stop(&s);
  const char *again[] = {front, "--time", "--cache-dir", b, "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("b2.hsaco"), NULL};
  rc = cli(again, &log);
  check(rc == 0 && contains(log, "cache 1 hits") && same_file(tmp_path("b2.hsaco"), reference()),
        T ": the remote hit was copied into the local cache", "exit %d\n%s", rc, shown(log));
  free(log);
  /* the library: gpublob_cache_lookup's figures */
  if (server_start(&s, T, NULL, NULL)) return;
  rc = compile(machine(), s.url, tmp_path("c.hsaco"), NULL, &log);
  free(log);
  gpublob *g;
  gpublob_open(&g);
  gpublob_target_choice t = {"amdgcn:gfx90a", NULL, NULL}; /* as the CLI's -t gives it: the same key */
  gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .targets = &t, .ntargets = 1, .cache_dir = machine(),
                       .remote_cache = s.url, .remote_timeout_ms = 5000};
  gpublob_input in = {.kind = GPUBLOB_INPUT_LLVM, .path = IN};
  gpublob_result r;
  rc = gpublob_cache_lookup(g, &o, &in, &r);
  gpublob_stats st;
  gpublob_stats_get(g, &st, sizeof st);
  check(rc == GPUBLOB_OK && r.count == 1 && st.remote_hits == 2 && st.remote_misses == 0 && st.remote_bytes_read > 0 &&
            st.remote_errors == 0 && !*gpublob_warnings(g),
        T ": gpublob_cache_lookup counts two remote hits", "rc %d, %zu hits, %zu misses, %llu bytes: %s", rc,
        st.remote_hits, st.remote_misses, st.remote_bytes_read, gpublob_warnings(g));
  if (!rc) gpublob_result_free(&r);
  stream_remote(g, &o, &in);
  gpublob_close(g);
  server_stop(&s);
#undef T
}

/* Every value overwritten with garbage, cut short, or another key's: recomputed,
** never served, and overwritten by the compile's store. */
static void test_garbage(void) {
#define T "garbage"
  server s;
  if (server_start(&s, T, NULL, NULL)) return;
  char *log = NULL;
  compile(machine(), s.url, tmp_path("g.hsaco"), NULL, &log);
  free(log);
  char **keys, **vals;
  size_t *lens;
  size_t n = redis_dump(&s, &keys, &vals, &lens);
  check(n == 2, T ": two values stored", "%zu", n);
  static const char *const how[] = {"garbage", "cut short", "another key's", "empty"};
  for (int w = 0; n == 2 && w < 4; w++) {
    for (size_t i = 0; i < n; i++) {
      if (w == 0) {
        char junk[4096];
        for (size_t k = 0; k < sizeof junk; k++) junk[k] = (char)(k * 131 + 7);
        redis_set(&s, keys[i], junk, sizeof junk);
      } else if (w == 1) {
        redis_set(&s, keys[i], vals[i], lens[i] - 3);
      } else if (w == 2) {
        redis_set(&s, keys[i], vals[1 - i], lens[1 - i]);
      } else {
        redis_set(&s, keys[i], "", 0);
      }
    }
    char out[64];
    snprintf(out, sizeof out, "garbage%d.hsaco", w);
    int rc = compile(machine(), s.url, tmp_path(out), NULL, &log);
    check(rc == 0 && same_file(tmp_path(out), reference()) && !contains(log, "time (front)") &&
              contains(log, "remote cache 0 hits") && contains(log, "2 stored"),
          T ": a value never served: recompiled and stored again", "%s: exit %d\n%s", how[w], rc, shown(log));
    check(lacks(log, "warning"), T ": a bad value is a miss, not a fault", "%s: %s", how[w], shown(log));
    free(log);
    char **k2, **v2;
    size_t *l2;
    size_t n2 = redis_dump(&s, &k2, &v2, &l2);
    int restored = n2 == n;
    for (size_t i = 0; restored && i < n; i++)
      for (size_t j = 0; j < n2; j++)
        if (!strcmp(keys[i], k2[j])) restored &= l2[j] == lens[i] && !memcmp(v2[j], vals[i], lens[i]);
    check(restored, T ": the compile overwrote the bad values", "%s", how[w]);
    dump_free(n2, k2, v2, l2);
  }
  dump_free(n, keys, vals, lens);
  /* a file over --remote-max is not stored: the entry (over 4 KB), but the manifest */
  redis_int(&s, NULL, "FLUSHALL");
  const char *argv[] = {"build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(),
                        "--remote-cache", s.url, "--remote-max", "1K", "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("max.hsaco"), NULL};
  int rc = cli(argv, &log);
  check(rc == 0 && contains(log, "1 stored") && redis_int(&s, NULL, "DBSIZE") == 1,
        T ": a file over --remote-max is not stored", "exit %d, %lld keys\n%s", rc, redis_int(&s, NULL, "DBSIZE"),
        shown(log));
  free(log);
  server_stop(&s);
#undef T
}

/* A server killed between calls: the next call warns once and compiles. */
static void test_killed(void) {
#define T "killed"
  server s;
  const char *sock = tmp_path("redis.sock");
  if (server_start(&s, T, sock, NULL)) return;
  char *log = NULL;
  int rc = compile(machine(), s.url, tmp_path("k1.hsaco"), NULL, &log);
  check(rc == 0 && contains(log, "2 stored"), T ": stores through the unix socket", "%s", shown(log));
  free(log);
  server_stop(&s);
  rc = compile(machine(), s.url, tmp_path("k2.hsaco"), NULL, &log);
  check(rc == 0 && same_file(tmp_path("k2.hsaco"), reference()), T ": a dead server: the call compiles", "exit %d\n%s",
        rc, shown(log));
  check(count_lines(log, "warning: remote cache") == 1 && contains(log, "cannot connect"),
        T ": and warns once", "%s", shown(log));
  free(log);
  /* a refused TCP port too */
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%d/0", free_port());
  rc = compile(machine(), url, tmp_path("k3.hsaco"), NULL, &log);
  check(rc == 0 && count_lines(log, "warning: remote cache") == 1, T ": a refusing port: one warning, compiled",
        "exit %d\n%s", rc, shown(log));
  free(log);
#undef T
}

/* A listener that accepts but never answers: at most about one timeout, one warning. */
static void test_hung(void) {
#define T "hung"
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 64) ||
      getsockname(fd, (struct sockaddr *)&a, &len)) {
    check(0, T ": a listener", "%s", strerror(errno));
    return;
  }
  char url[64];
  snprintf(url, sizeof url, "redis://127.0.0.1:%d", ntohs(a.sin_port));
  char *log = NULL;
  double t0 = now_ms();
  int rc = compile(machine(), NULL, tmp_path("h0.hsaco"), NULL, &log);
  double base = now_ms() - t0;
  free(log);
  const char *argv[] = {"build/gpublob", "--cache-dir", machine(), "--remote-cache", url, "--remote-timeout", "2500",
                        "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("h1.hsaco"), NULL};
  t0 = now_ms();
  rc = cli(argv, &log);
  double took = now_ms() - t0;
  check(rc == 0 && same_file(tmp_path("h1.hsaco"), reference()), T ": the call compiles", "exit %d\n%s", rc,
        shown(log));
  check(count_lines(log, "warning: remote cache") == 1, T ": one warning", "%s", shown(log));
  /* one timeout is base + 2.5 s, two would be base + 5 s: the line between leaves 1.5 s for noise */
  check(took >= 2400 && took < base + 4000, T ": about one timeout (2.5 s), not one per command or process",
        "%.0f ms against %.0f ms without the tier", took, base);
  free(log);
  close(fd);
#undef T
}

/* requirepass: the password from the environment (never the command line); a wrong
** one is one warning and the call compiles. */
static void test_password(void) {
#define T "password"
  server s;
  const char *extra[] = {"--requirepass", "s3cret", NULL};
  if (server_start(&s, T, NULL, extra)) return;
  char *log = NULL;
  setenv("GPUBLOB_REMOTE_CACHE", s.url, 1);
  setenv("GPUBLOB_REMOTE_PASSWORD", "s3cret", 1);
  int rc = compile(machine(), NULL, tmp_path("p1.hsaco"), NULL, &log);
  check(rc == 0 && contains(log, "2 stored") && lacks(log, "warning") && redis_int(&s, "s3cret", "DBSIZE") == 2,
        T ": $GPUBLOB_REMOTE_CACHE and $GPUBLOB_REMOTE_PASSWORD", "exit %d\n%s", rc, shown(log));
  free(log);
  unsetenv("GPUBLOB_REMOTE_PASSWORD");
  char url[300];
  snprintf(url, sizeof url, "redis://:s3cret@127.0.0.1:%d", s.port);
  setenv("GPUBLOB_REMOTE_CACHE", url, 1);
  rc = compile(machine(), NULL, tmp_path("p2.hsaco"), NULL, &log);
  check(rc == 0 && contains(log, "time (front)") && contains(log, "remote cache 2 hits"),
        T ": the password in the environment's URL", "exit %d\n%s", rc, shown(log));
  free(log);
  setenv("GPUBLOB_REMOTE_PASSWORD", "n0t-1t", 1);
  setenv("GPUBLOB_REMOTE_CACHE", s.url, 1);
  rc = compile(machine(), NULL, tmp_path("p3.hsaco"), NULL, &log);
  check(rc == 0 && same_file(tmp_path("p3.hsaco"), reference()) && count_lines(log, "warning: remote cache") == 1 &&
            contains(log, "AUTH failed") && lacks(log, "n0t-1t"),
        T ": a wrong password: one warning (not showing it), compiled", "exit %d\n%s", rc, shown(log));
  free(log);
  unsetenv("GPUBLOB_REMOTE_PASSWORD");
  /* a URL with the password, on the command line's --time: never printed */
  rc = compile(machine(), url, tmp_path("p4.hsaco"), "--remote-read-only", &log);
  check(rc == 0 && lacks(log, "s3cret"), T ": the password is never printed", "%s", shown(log));
  free(log);
  unsetenv("GPUBLOB_REMOTE_CACHE");
  server_stop(&s);
  /* and a warning about a URL with a password hides it */
  rc = compile(machine(), url, tmp_path("p5.hsaco"), NULL, &log);
  check(rc == 0 && count_lines(log, "warning: remote cache redis://***@127.0.0.1:") == 1 && lacks(log, "s3cret"),
        T ": a warning shows the URL without its password", "%s", shown(log));
  free(log);
  /* a password holding '@' and '/': hidden whole, and the host after the last '@' */
  rc = compile(machine(), "redis://:s3@c/ret@127.0.0.1:1", tmp_path("p6.hsaco"), NULL, &log);
  check(rc == 0 && count_lines(log, "warning: remote cache redis://***@127.0.0.1:1") == 1 && lacks(log, "c/ret") &&
            lacks(log, "s3@"),
        T ": a password with '@' and '/' is hidden whole", "%s", shown(log));
  free(log);
#undef T
}

/* --remote-read-only: hits served, nothing stored. */
static void test_read_only(void) {
#define T "read-only"
  server s;
  if (server_start(&s, T, NULL, NULL)) return;
  char *log = NULL;
  int rc = compile(machine(), s.url, tmp_path("r1.hsaco"), "--remote-read-only", &log);
  check(rc == 0 && contains(log, "0 stored") && redis_int(&s, NULL, "DBSIZE") == 0,
        T ": a compile stores nothing remotely", "exit %d, %lld keys\n%s", rc, redis_int(&s, NULL, "DBSIZE"),
        shown(log));
  free(log);
  compile(machine(), s.url, tmp_path("r2.hsaco"), NULL, &log);
  free(log);
  rc = compile(machine(), s.url, tmp_path("r3.hsaco"), "--remote-read-only", &log);
  check(rc == 0 && contains(log, "time (front)") && contains(log, "remote cache 2 hits"),
        T ": a read-only consumer gets the same key, and hits", "exit %d\n%s", rc, shown(log));
  free(log);
  server_stop(&s);
#undef T
}

/* Eight processes, eight machines, at once; then eight more that all hit. */
static void test_eight(void) {
#define T "eight"
  server s;
  if (server_start(&s, T, NULL, NULL)) return;
  for (int round = 0; round < 2; round++) {
    pid_t pids[8];
    char logs[8][64], outs[8][64];
    for (int i = 0; i < 8; i++) {
      snprintf(logs[i], sizeof logs[i], "eight%d-%d.log", round, i);
      snprintf(outs[i], sizeof outs[i], "eight%d-%d.hsaco", round, i);
      char log[4200], out[4200], dir[4200];
      snprintf(log, sizeof log, "%s", tmp_path(logs[i]));
      snprintf(out, sizeof out, "%s", tmp_path(outs[i]));
      snprintf(dir, sizeof dir, "%s", machine());
      if ((pids[i] = fork()) == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(fd, 1);
        dup2(fd, 2);
        execl("build/gpublob", "build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", dir,
              "--remote-cache", s.url, "-t", "amdgcn:gfx90a", IN, "-o", out, (char *)NULL);
        _exit(127);
      }
    }
    int ok = 0, fronts = 0;
    for (int i = 0; i < 8; i++) {
      int st;
      waitpid(pids[i], &st, 0);
      char *log = (char *)slurp(tmp_path(logs[i]), &(size_t){0});
      int good = WIFEXITED(st) && !WEXITSTATUS(st) && same_file(tmp_path(outs[i]), reference()) && lacks(log, "warning");
      if (!good) printf("  %s: status %d\n%s\n", logs[i], st, shown(log));
      ok += good;
      fronts += contains(log, "time (front)");
      free(log);
    }
    check(ok == 8, T ": eight processes at once, each right", "round %d: %d of 8", round, ok);
    if (round == 1) check(fronts == 8, T ": then eight fresh machines all hit", "%d of 8 from the front", fronts);
  }
  check(redis_int(&s, NULL, "DBSIZE") == 2, T ": two files on the server", "%lld", redis_int(&s, NULL, "DBSIZE"));
  server_stop(&s);
#undef T
}
#endif

/* Options and URLs the tier refuses, and a build without it: one warning, never an
** error. */
static void test_refused_urls(void) {
  gpublob *g;
  gpublob_open(&g);
  static const char *const urls[] = {"ftp://127.0.0.1:1", "redis://127.0.0.1:99999", "redis://u@127.0.0.1",
                                     "unix://relative", "redis://127.0.0.1/x"};
  for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
    gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a", .cache_dir = machine(),
                         .remote_cache = urls[i]};
    gpublob_input in = {.path = IN};
    gpublob_result r;
    int rc = gpublob_cache_lookup(g, &o, &in, &r);
    const char *w = gpublob_warnings(g);
    check(rc == GPUBLOB_NOTCACHED && count_lines(w, "remote cache") == 1 &&
              contains(w, GPUBLOB_REMOTE || i == 0 ? "not a redis://" : "without hiredis"),
          "urls: a URL not understood is one warning", "%s: %d: %s", urls[i], rc, w);
  }
  gpublob_close(g);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  unsetenv("GPUBLOB_REMOTE_CACHE");
  unsetenv("GPUBLOB_REMOTE_PASSWORD");
  unsetenv("GPUBLOB_REMOTE_FAULT");
  test_refused_urls();
#if GPUBLOB_REMOTE
  atexit(stop_all);
  if (!have_program(REDIS_SERVER)) {
    skip("remote", "no redis-server (" REDIS_SERVER "; apt-get install redis-server): the server tests need one");
    return report();
  }
  /* every case compiles IN, whose expf is ocml's */
  if (!need_rocm("remote: every server case (saxpy_amdgcn.ll)")) return report();
  reference();
  test_shared();
  test_garbage();
  test_killed();
  test_hung();
  test_password();
  test_read_only();
  test_eight();
#else
  skip("remote", "this build has no remote tier: configure found no hiredis (apt-get install libhiredis-dev)");
#endif
  return report();
}
