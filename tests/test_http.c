/* test_http: the cache's HTTP remote tier against real servers on 127.0.0.1: nginx
** (Debian's nginx-light) with WebDAV PUT, started by the test in its own folder with
** its own configuration, port and access log, and a tiny raw server of the test's own
** (a thread) for what nginx will not do: a 10 GiB Content-Length never sent, a body
** stalled midway.  In both layouts (bazel: /ac/ and /cas/, whose names are checked
** against sha256sum; flat): one machine stores, a second, empty one is answered by the
** front alone (no compiler beside it) with a fresh compile's bytes; hostile values
** (cut short, another key's, garbage, an HTML page with status 200) are misses, never
** served; a stopped, never started or stalled server costs at most about one timeout
** and one warning, exit 0; read-only never PUTs (the access log); a bearer token from
** the environment is sent, and is in no message, no process's argv and no cache file;
** a password holding '/', '@', '?' and '#' works and is in no message, hand-off or argv;
** a WebDAV server of the test's own answering PUT as Apache does (201 and a page):
** every file stored, then hit; https with a CA of the test's own (openssl): not trusted without --remote-ca (one
** warning, compiled locally), a hit with it; the static front's house rule (its objects
** call no dlopen, and alone it fails cleanly on an http:// tier).  Without libcurl in the build or nginx on the machine the server tests say skipped. */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gpublob.h"
#include "testlib.h"

#ifndef GPUBLOB_CURL
#define GPUBLOB_CURL 0
#endif
#ifndef NGINX
#define NGINX ""
#endif

#define IN "examples/saxpy_amdgcn.ll"

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

#if GPUBLOB_CURL
static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cli(const char *const *argv, char **log) {
  int rc = run(argv, log);
  check(rc >= 0 && rc < 128, "no exit status from a signal", "%s: %d\n%s", argv[0], rc, log ? shown(*log) : "");
  return rc;
}

static int same_file(const char *a, const char *b) {
  size_t na, nb;
  unsigned char *x = slurp(a, &na), *y = slurp(b, &nb);
  int same = x && y && na == nb && !memcmp(x, y, na);
  free(x);
  free(y);
  return same;
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

static int port_answers(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                          .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int up = fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof a);
  if (fd >= 0) close(fd);
  return up;
}

/* ---- nginx: a folder of its own (root/, tmp/, its configuration and logs) ---- */
typedef struct server {
  pid_t pid;
  int port;
  char dir[1024], url[1100];
} server;

static pid_t live;

static void stop_live(void) {
  if (live <= 0) return;
  kill(live, SIGTERM);
  for (int i = 0; i < 200 && waitpid(live, NULL, WNOHANG) != live; i++) usleep(10000);
  kill(live, SIGKILL);
  waitpid(live, NULL, WNOHANG);
  live = 0;
}

/* tls: NULL, or {certificate, key}: the server speaks https. */
static int nginx_start_tls(server *s, const char *name, const char *const *tls) {
  memset(s, 0, sizeof *s);
  snprintf(s->dir, sizeof s->dir, "%s", tmp_path(name));
  char path[1100], conf[16000], ssl[9000] = "";
  mkdir(s->dir, 0700);
  snprintf(path, sizeof path, "%s/root", s->dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/tmp", s->dir);
  mkdir(path, 0700);
  if ((s->port = free_port()) < 0) return -1;
  const char *d = s->dir;
  if (tls) snprintf(ssl, sizeof ssl, " ssl;\n    ssl_certificate %s;\n    ssl_certificate_key %s", tls[0], tls[1]);
  snprintf(conf, sizeof conf,
           "daemon off;\nmaster_process off;\nworker_processes 1;\n%s"
           "error_log %s/error.log;\npid %s/nginx.pid;\nevents { worker_connections 64; }\n"
           "http {\n  access_log %s/access.log;\n  client_body_temp_path %s/tmp;\n  proxy_temp_path %s/tmp;\n"
           "  fastcgi_temp_path %s/tmp;\n  uwsgi_temp_path %s/tmp;\n  scgi_temp_path %s/tmp;\n"
           "  client_max_body_size 0;\n  server {\n    listen 127.0.0.1:%d%s;\n    root %s/root;\n"
           "    location / { dav_methods PUT; create_full_put_path on; }\n  }\n}\n",
           getuid() == 0 ? "user root;\n" : "", d, d, d, d, d, d, d, d, s->port, ssl, d);
  snprintf(path, sizeof path, "%s/nginx.conf", d);
  if (spill(path, conf, strlen(conf))) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    char err[1100];
    snprintf(err, sizeof err, "%s/error.log", d);
    execl(NGINX, NGINX, "-p", d, "-c", path, "-e", err, (char *)NULL);
    _exit(127);
  }
  if (pid < 0) return -1;
  s->pid = live = pid;
  for (int i = 0; i < 250; i++) {
    if (port_answers(s->port)) return 0;
    if (waitpid(pid, NULL, WNOHANG) == pid) break;
    usleep(20000);
  }
  return -1;
}

static int nginx_start(server *s, const char *name) { return nginx_start_tls(s, name, NULL); }

static void nginx_stop(server *s) {
  if (s->pid == live) stop_live();
  s->pid = 0;
}

static char *access_log(const server *s) {
  char path[4400];
  snprintf(path, sizeof path, "%s/access.log", s->dir);
  size_t n;
  return (char *)slurp(path, &n);
}

/* ---- the raw server: answers every request with the same head, then stalls ---- */
typedef struct raw {
  int fd, port;
  const char *answer; /* the bytes sent after the request's head */
  char request[4096]; /* the first request's head, as received */
  pthread_mutex_t mu;
} raw;

typedef struct raw_conn {
  raw *r;
  int fd;
} raw_conn;

static void *raw_serve(void *arg) {
  raw_conn *c = arg;
  char buf[4096];
  ssize_t n = read(c->fd, buf, sizeof buf - 1);
  if (n > 0) {
    buf[n] = 0;
    pthread_mutex_lock(&c->r->mu);
    if (!c->r->request[0]) snprintf(c->r->request, sizeof c->r->request, "%s", buf);
    pthread_mutex_unlock(&c->r->mu);
    if (write(c->fd, c->r->answer, strlen(c->r->answer)) < 0) {}
  }
  struct pollfd p = {c->fd, POLLIN, 0}; /* stalled: until the client goes, at most 5 s */
  for (int i = 0; i < 50 && poll(&p, 1, 100) >= 0; i++)
    if ((p.revents & POLLIN) && read(c->fd, buf, sizeof buf) <= 0) break;
  close(c->fd);
  free(c);
  return NULL;
}

static void *raw_accept(void *arg) {
  raw *r = arg;
  for (int fd; (fd = accept(r->fd, NULL, NULL)) >= 0;) {
    raw_conn *c = malloc(sizeof *c);
    pthread_t t;
    if (!c) break;
    *c = (raw_conn){r, fd};
    if (pthread_create(&t, NULL, raw_serve, c)) {
      close(fd);
      free(c);
      continue;
    }
    pthread_detach(t);
  }
  return NULL;
}

static int raw_start(raw *r, const char *answer) {
  memset(r, 0, sizeof *r);
  pthread_mutex_init(&r->mu, NULL);
  r->answer = answer;
  r->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&a, sizeof a) || listen(r->fd, 64) ||
      getsockname(r->fd, (struct sockaddr *)&a, &len))
    return -1;
  r->port = ntohs(a.sin_port);
  pthread_t t;
  if (pthread_create(&t, NULL, raw_accept, r)) return -1;
  pthread_detach(t);
  return 0;
}

/* ---- the dav server: a WebDAV store as Apache's mod_dav answers it ---- */
/* It keeps each PUT's body in memory under its path and serves it to a GET (404 with
** a page when it has none); a PUT is answered with put_status and a page of page_len
** bytes (Apache: "201 Created" and a short HTML page), whatever nginx would send. */
typedef struct dav_file {
  char path[256];
  unsigned char *bytes;
  size_t len;
} dav_file;

typedef struct dav {
  int fd, port, puts;
  const char *put_status; /* "201 Created", "403 Forbidden" */
  size_t page_len;        /* the PUT answer's page */
  dav_file files[16];
  int nfiles;
  pthread_mutex_t mu;
} dav;

typedef struct dav_conn {
  dav *d;
  int fd;
} dav_conn;

static int write_all_fd(int fd, const void *p, size_t n) {
  for (const char *b = p; n;) {
    ssize_t w = write(fd, b, n);
    if (w <= 0) return -1;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

/* A page of n bytes, HTML as Apache writes it (padded with a comment past its text). */
static char *dav_page(size_t n) {
  static const char html[] = "<!DOCTYPE HTML PUBLIC \"-//IETF//DTD HTML 2.0//EN\">\n<html><head><title>201 Created"
                             "</title></head><body><h1>Created</h1><p>Resource has been created.</p></body></html>\n";
  char *page = malloc(n + 1);
  if (!page) return NULL;
  for (size_t i = 0; i < n; i++) page[i] = i < sizeof html - 1 ? html[i] : "<!-- page -->\n"[(i - sizeof html + 1) % 14];
  page[n] = 0;
  return page;
}

/* One request on the connection: its head and body read, its answer written; 0, or
** -1 when the client has gone.  buf holds *have bytes already read. */
static int dav_request(dav *d, int fd, char *buf, size_t cap, size_t *have) {
  char *end;
  while (!(buf[*have] = 0, end = strstr(buf, "\r\n\r\n"))) {
    ssize_t n = *have < cap - 1 ? read(fd, buf + *have, cap - 1 - *have) : -1;
    if (n <= 0) return -1;
    *have += (size_t)n;
  }
  char method[8] = "", path[256] = "";
  sscanf(buf, "%7s %255s", method, path);
  const char *cl = strcasestr(buf, "\r\nContent-Length:");
  size_t head = (size_t)(end + 4 - buf), len = cl && cl < end ? strtoull(cl + 17, NULL, 10) : 0;
  unsigned char *body = malloc(len + 1);
  size_t got = *have - head < len ? *have - head : len;
  if (!body) return -1;
  memcpy(body, buf + head, got);
  for (ssize_t n; got < len && (n = read(fd, body + got, len - got)) > 0;) got += (size_t)n;
  *have = 0; /* libcurl sends one request at a time: nothing after this one's body */
  if (got < len) return free(body), -1;
  char answer[512];
  int rc = 0;
  pthread_mutex_lock(&d->mu);
  if (!strcmp(method, "PUT")) {
    d->puts++;
    int i = 0;
    while (i < d->nfiles && strcmp(d->files[i].path, path)) i++;
    if (i < 16 && !strncmp(d->put_status, "2", 1)) {
      if (i == d->nfiles) snprintf(d->files[d->nfiles++].path, sizeof d->files[0].path, "%s", path);
      free(d->files[i].bytes);
      d->files[i].bytes = body, d->files[i].len = len, body = NULL;
    }
    char *page = dav_page(d->page_len);
    snprintf(answer, sizeof answer, "HTTP/1.1 %s\r\nLocation: http://127.0.0.1:%d%s\r\nContent-Type: text/html; "
             "charset=iso-8859-1\r\nContent-Length: %zu\r\n\r\n", d->put_status, d->port, path, d->page_len);
    rc = !page || write_all_fd(fd, answer, strlen(answer)) || write_all_fd(fd, page, d->page_len) ? -1 : 0;
    free(page);
  } else {
    int i = 0;
    while (i < d->nfiles && strcmp(d->files[i].path, path)) i++;
    static const char none[] = "<html><body><h1>Not Found</h1></body></html>\n";
    const void *bytes = i < d->nfiles ? (const void *)d->files[i].bytes : none;
    size_t n = i < d->nfiles ? d->files[i].len : sizeof none - 1;
    snprintf(answer, sizeof answer, "HTTP/1.1 %s\r\nContent-Length: %zu\r\n\r\n", i < d->nfiles ? "200 OK" : "404 Not Found", n);
    rc = write_all_fd(fd, answer, strlen(answer)) || write_all_fd(fd, bytes, n) ? -1 : 0;
  }
  pthread_mutex_unlock(&d->mu);
  free(body);
  return rc;
}

static void *dav_serve(void *arg) {
  dav_conn *c = arg;
  char *buf = malloc(65536);
  size_t have = 0;
  struct pollfd p = {c->fd, POLLIN, 0};
  while (buf && poll(&p, 1, 5000) > 0 && !dav_request(c->d, c->fd, buf, 65536, &have)) {}
  free(buf);
  close(c->fd);
  free(c);
  return NULL;
}

static void *dav_accept(void *arg) {
  dav *d = arg;
  for (int fd; (fd = accept(d->fd, NULL, NULL)) >= 0;) {
    dav_conn *c = malloc(sizeof *c);
    pthread_t t;
    if (!c) break;
    *c = (dav_conn){d, fd};
    if (pthread_create(&t, NULL, dav_serve, c)) {
      close(fd);
      free(c);
      continue;
    }
    pthread_detach(t);
  }
  return NULL;
}

static int dav_start(dav *d, const char *put_status, size_t page_len) {
  memset(d, 0, sizeof *d);
  pthread_mutex_init(&d->mu, NULL);
  d->put_status = put_status;
  d->page_len = page_len;
  d->fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  socklen_t len = sizeof a;
  if (d->fd < 0 || bind(d->fd, (struct sockaddr *)&a, sizeof a) || listen(d->fd, 64) ||
      getsockname(d->fd, (struct sockaddr *)&a, &len))
    return -1;
  d->port = ntohs(a.sin_port);
  pthread_t t;
  if (pthread_create(&t, NULL, dav_accept, d)) return -1;
  pthread_detach(t);
  return 0;
}

/* ---- calls ---- */
/* A working server's calls get a long timeout (HIT_TIMEOUT): the default 50 ms is for a
** quiet machine, and a loaded one (CI's two cores) may take longer to load libcurl and
** answer; the timeout cases give theirs. */
#define HIT_TIMEOUT "5000"
static int compile(const char *dir, const char *url, const char *out, const char *extra, char **log) {
  const char *argv[16] = {"build/gpublob", "--time", "--cache-dir", dir, "-t", "amdgcn:gfx90a", IN, "-o", out};
  int n = 9;
  if (url) {
    argv[n++] = "--remote-cache";
    argv[n++] = url;
    argv[n++] = "--remote-timeout";
    argv[n++] = HIT_TIMEOUT;
  }
  if (extra) argv[n++] = extra;
  argv[n] = NULL;
  return cli(argv, log);
}

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

/* The front alone, in a folder without gpublob-compiler: only a hit can succeed.  The
** front's two programs go there: the static gpublob hands a call with an http:// tier
** to its dynamic twin, gpublob-front (programs/front.c), which loads libcurl. */
static const char *front_alone(void) {
  static char front[4300];
  if (!*front) {
    const char *alone = tmp_path("alone");
    mkdir(alone, 0700);
    const char *names[] = {"gpublob-front", "gpublob"};
    for (size_t i = 0; i < 2; i++) {
      snprintf(front, sizeof front, "%s/%s", alone, names[i]);
      char from[64];
      snprintf(from, sizeof from, "build/%s", names[i]);
      size_t n;
      unsigned char *bytes = slurp(from, &n);
      check(bytes && !spill(front, bytes, n) && !chmod(front, 0755), "the front's programs copied alone", "%s", front);
      free(bytes);
    }
  }
  return front;
}

/* The regular files in dir/sub, their paths (up to 8). */
static int files_in(const char *dir, const char *sub, char paths[8][4800]) {
  char d[4500];
  snprintf(d, sizeof d, "%s/%s", dir, sub);
  DIR *dp = opendir(d);
  int n = 0;
  for (struct dirent *e; dp && (e = readdir(dp)) && n < 8;)
    if (e->d_name[0] != '.') snprintf(paths[n++], sizeof paths[0], "%s/%s", d, e->d_name);
  if (dp) closedir(dp);
  return n;
}

static const char *const layouts[] = {"bazel", "flat"};

/* The server's URL for a layout: its own prefix. */
static void url_of(const server *s, int flat, char *url, size_t n) {
  snprintf(url, n, "http://127.0.0.1:%d/%s%s", s->port, layouts[flat], flat ? "?layout=flat" : "");
}

/* The prefix's folders that hold files: bazel's ac and cas, flat's v3. */
static int folders_of(int flat, const char **sub) {
  if (flat) {
    sub[0] = "flat/v3";
    return 1;
  }
  sub[0] = "bazel/ac";
  sub[1] = "bazel/cas";
  return 2;
}

/* One machine stores, a second empty one is answered by the front alone, the same bytes;
** bazel's /cas/ names are their files' SHA-256. */
static void test_shared(server *s, int flat) {
  char url[4400], root[4400], name[64];
  url_of(s, flat, url, sizeof url);
  snprintf(root, sizeof root, "%s/root", s->dir);
  char *log = NULL;
  snprintf(name, sizeof name, "%s: the first machine compiles and stores two files", layouts[flat]);
  int rc = compile(machine(), url, tmp_path("a.hsaco"), NULL, &log);
  check(rc == 0 && same_file(tmp_path("a.hsaco"), reference()) && contains(log, "2 stored") && lacks(log, "warning"),
        name, "exit %d\n%s", rc, shown(log));
  free(log);
  const char *argv[] = {front_alone(), "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(), "--remote-cache", url, "-t",
                        "amdgcn:gfx90a", IN, "-o", tmp_path("b.hsaco"), NULL};
  rc = cli(argv, &log);
  snprintf(name, sizeof name, "%s: a second, empty machine: the front's remote hit", layouts[flat]);
  check(rc == 0 && same_file(tmp_path("b.hsaco"), reference()) && contains(log, "time (front)") &&
            contains(log, "remote cache 2 hits, 0 misses, 0 stored"),
        name, "exit %d\n%s", rc, shown(log));
  free(log);
  const char *sub[2];
  int nsub = folders_of(flat, sub), nfiles = 0;
  for (int i = 0; i < nsub; i++) {
    char paths[8][4800];
    nfiles += files_in(root, sub[i], paths);
  }
  snprintf(name, sizeof name, "%s: the server holds the layout's files", layouts[flat]);
  check(nfiles == (flat ? 2 : 4), name, "%d files", nfiles);
  if (flat) return;
  char paths[8][4800];
  int n = files_in(root, "bazel/cas", paths), good = 0;
  for (int i = 0; i < n; i++) {
    const char *sha[] = {"sha256sum", paths[i], NULL};
    char *out = NULL;
    run(sha, &out);
    good += out && !strncmp(out, strrchr(paths[i], '/') + 1, 64);
    free(out);
  }
  check(n == 2 && good == 2, "bazel: each /cas/ name is sha256sum of its file", "%d of %d", good, n);
}

/* An MLIR input names its jobs in its target attributes, and no option does: while
** libcurl loads, the lookup digests the tools and libraries those attributes name
** (a guess: one in a comment, or of a chip no spec knows, costs only its own try).
** A second, empty machine's front hits all the same, the same bytes, no warning. */
static void test_mlir_shared(server *s) {
  char *log = NULL, url[4400];
  if (!built_with_mlir("build/gpublob")) {
    skip("mlir: a remote hit of an MLIR input", "this build has no MLIR");
    return;
  }
  size_t n;
  unsigned char *text = slurp("tests/mlir/offload_rocdl.mlir", &n);
  const char *input = tmp_path("guess.mlir");
  FILE *f = fopen(input, "w");
  int made = text && f && fprintf(f, "// decoys: #rocdl.target<chip = \"gfx9999\"> #nvvm.target<O = 3, chip = \"sm_1\"\n"
                                     "// #rocdl.target<chip = \"gfx90a\"\n%.*s", (int)n, (const char *)text) > 0;
  made = f && !fclose(f) && made;
  free(text);
  check(made, "mlir: the input is written", "%s", input);
  if (!made) return;
  snprintf(url, sizeof url, "http://127.0.0.1:%d/mlir", s->port);
  const char *first[] = {"build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(),
                         "--remote-cache", url, input, "-o", tmp_path("guess-a.mlir"), NULL};
  int rc = cli(first, &log);
  check(rc == 0 && contains(log, "2 stored") && lacks(log, "warning"), "mlir: the first machine compiles and stores",
        "exit %d\n%s", rc, shown(log));
  free(log);
  const char *second[] = {front_alone(), "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(),
                          "--remote-cache", url, input, "-o", tmp_path("guess-b.mlir"), NULL};
  rc = cli(second, &log);
  check(rc == 0 && same_file(tmp_path("guess-a.mlir"), tmp_path("guess-b.mlir")) &&
            contains(log, "time (front): remote cache 2 hits, 0 misses") && lacks(log, "warning"),
        "mlir: a second, empty machine: the front's remote hit, the same bytes (decoy target attributes guessed)",
        "exit %d\n%s", rc, shown(log));
  free(log);
}

/* Hostile values put straight into nginx's root: each a miss, never served, exit 0,
** and the compile's store puts the right bytes back. */
static void test_hostile(server *s, int flat) {
  char url[4400], root[4400];
  url_of(s, flat, url, sizeof url);
  snprintf(root, sizeof root, "%s/root", s->dir);
  static const char *const how[] = {"cut short", "another key's", "garbage", "an HTML page"};
  const char *sub[2];
  int nsub = folders_of(flat, sub);
  for (int w = 0; w < 4; w++) {
    for (int f = 0; f < nsub; f++) {
      char paths[8][4800];
      int n = files_in(root, sub[f], paths);
      size_t len[8];
      unsigned char *bytes[8];
      for (int i = 0; i < n; i++) bytes[i] = slurp(paths[i], &len[i]);
      for (int i = 0; i < n && bytes[i]; i++) {
        static const char html[] = "<html><head><title>200 OK</title></head><body>Cache</body></html>\n";
        char junk[4096];
        for (size_t k = 0; k < sizeof junk; k++) junk[k] = (char)(k * 131 + 7);
        if (w == 0) spill(paths[i], bytes[i], len[i] - 3);
        else if (w == 1 && n == 2 && bytes[1 - i]) spill(paths[i], bytes[1 - i], len[1 - i]);
        else if (w == 2) spill(paths[i], junk, sizeof junk);
        else spill(paths[i], html, sizeof html - 1);
      }
      for (int i = 0; i < n; i++) free(bytes[i]);
    }
    char *log = NULL, out[64], name[200];
    snprintf(out, sizeof out, "hostile%d%d.hsaco", flat, w);
    int rc = compile(machine(), url, tmp_path(out), NULL, &log);
    snprintf(name, sizeof name, "%s: a value %s is never served: compiled, stored again", layouts[flat], how[w]);
    check(rc == 0 && same_file(tmp_path(out), reference()) && lacks(log, "time (front)") &&
              contains(log, "remote cache 0 hits") && contains(log, "2 stored") && lacks(log, "warning"),
          name, "exit %d\n%s", rc, shown(log));
    free(log);
    snprintf(out, sizeof out, "hostile%d%db.hsaco", flat, w);
    rc = compile(machine(), url, tmp_path(out), NULL, &log);
    snprintf(name, sizeof name, "%s: after a value %s, the store's right bytes are a hit", layouts[flat], how[w]);
    check(rc == 0 && contains(log, "time (front)") && contains(log, "remote cache 2 hits") &&
              same_file(tmp_path(out), reference()),
          name, "exit %d\n%s", rc, shown(log));
    free(log);
  }
}

/* A call against url: exit 0, the right bytes, at most one warning, and its time. */
static double call_timed(const char *url, const char *timeout, const char *what, char **log) {
  char out[64];
  static int n;
  snprintf(out, sizeof out, "timed%d.hsaco", n++);
  const char *argv[] = {"build/gpublob", "--cache-dir", machine(), "--remote-cache", url, "--remote-timeout", timeout,
                        "-t", "amdgcn:gfx90a", IN, "-o", tmp_path(out), NULL};
  double t0 = now_ms();
  int rc = cli(argv, log);
  double took = now_ms() - t0;
  char name[200];
  snprintf(name, sizeof name, "%s: the call goes on locally, exit 0, the right bytes, at most one warning", what);
  check(rc == 0 && same_file(tmp_path(out), reference()) && count_lines(*log, "warning: remote cache") <= 1, name,
        "exit %d\n%s", rc, shown(*log));
  return took;
}

/* The base: the same call with no remote tier. */
static double base_ms(void) {
  char *log = NULL;
  double t0 = now_ms();
  compile(machine(), NULL, tmp_path("base.hsaco"), NULL, &log);
  free(log);
  return now_ms() - t0;
}

/* Dead, never started, stalled and 10-GiB servers: at most about one timeout. */
static void test_faults(server *s) {
  double base = base_ms();
  char url[4400], *log = NULL;
  url_of(s, 0, url, sizeof url);
  nginx_stop(s);
  double took = call_timed(url, "1000", "stopped", &log);
  check(count_lines(log, "warning: remote cache") == 1 && contains(log, "the call goes on without it"),
        "stopped: one warning", "%s", shown(log));
  check(took < base + 1500, "stopped: a refused connection costs no timeout", "%.0f ms against %.0f", took, base);
  free(log);
  snprintf(url, sizeof url, "http://127.0.0.1:%d/never", free_port());
  took = call_timed(url, "1000", "never started", &log);
  check(count_lines(log, "warning: remote cache") == 1, "never started: one warning", "%s", shown(log));
  free(log);
  static raw stall, huge;
  if (raw_start(&stall, "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\nGPUBLOB\0\1\2") ||
      raw_start(&huge, "HTTP/1.1 200 OK\r\nContent-Length: 10737418240\r\n\r\n")) {
    check(0, "raw servers start", "%s", strerror(errno));
    return;
  }
  for (int flat = 0; flat < 2; flat++) {
    char what[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%d/p%s", stall.port, flat ? "?layout=flat" : "");
    snprintf(what, sizeof what, "stalled mid-body (%s)", layouts[flat]);
    took = call_timed(url, "1500", what, &log);
    snprintf(what, sizeof what, "stalled mid-body (%s): one warning, about one timeout", layouts[flat]);
    check(count_lines(log, "warning: remote cache") == 1 && took >= 1400 && took < base + 1500 + 2000, what,
          "%.0f ms against %.0f without the tier\n%s", took, base, shown(log));
    free(log);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/p%s", huge.port, flat ? "?layout=flat" : "");
    snprintf(what, sizeof what, "a 10 GiB Content-Length (%s)", layouts[flat]);
    took = call_timed(url, "1500", what, &log);
    snprintf(what, sizeof what, "a 10 GiB Content-Length (%s): never served, at most one timeout", layouts[flat]);
    check(contains(log, "0 hits") || lacks(log, "time (front)"), what, "%s", shown(log));
    check(took < base + 1500 + 2000, what, "%.0f ms against %.0f without the tier", took, base);
    free(log);
  }
}

/* --remote-read-only: hits served, no PUT in the access log. */
static void test_read_only(void) {
  server s;
  if (nginx_start(&s, "nginx-ro")) {
    check(0, "read-only: nginx starts", "port %d", s.port);
    return;
  }
  char url[4400], *log = NULL;
  url_of(&s, 0, url, sizeof url);
  int rc = compile(machine(), url, tmp_path("ro1.hsaco"), "--remote-read-only", &log);
  free(log);
  char *access = access_log(&s);
  check(rc == 0 && contains(access, "GET /bazel/ac/") && lacks(access, "PUT "),
        "read-only: a compile looks up and never PUTs (the access log)", "exit %d\n%s", rc, shown(access));
  free(access);
  compile(machine(), url, tmp_path("ro2.hsaco"), NULL, &log);
  free(log);
  rc = compile(machine(), url, tmp_path("ro3.hsaco"), "--remote-read-only", &log);
  check(rc == 0 && contains(log, "time (front)") && contains(log, "remote cache 2 hits"),
        "read-only: a consumer hits what another stored", "exit %d\n%s", rc, shown(log));
  free(log);
  nginx_stop(&s);
}

/* openssl ARGS... (no shell): 0 when it succeeded. */
static int openssl(const char *const *args) {
  const char *argv[24] = {"openssl"};
  size_t n = 1;
  while (*args && n < 23) argv[n++] = *args++;
  argv[n] = NULL;
  char *log = NULL;
  int rc = run(argv, &log);
  if (rc) printf("# openssl: %s\n", shown(log));
  free(log);
  return rc;
}

/* A CA of the test's own and a certificate it signed for 127.0.0.1 (EC keys: quick),
** in the scratch folder: 0, or -1. */
static int make_tls(const char *ca, const char *cert, const char *key) {
  char ca_key[4200], csr[4200], ext[4200];
  snprintf(ca_key, sizeof ca_key, "%s", tmp_path("ca.key"));
  snprintf(csr, sizeof csr, "%s", tmp_path("server.csr"));
  snprintf(ext, sizeof ext, "%s", tmp_path("server.ext"));
  static const char san[] = "subjectAltName = IP:127.0.0.1\nbasicConstraints = CA:FALSE\n";
  const char *new_ca[] = {"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", ca_key, "-out", ca, "-days", "2", "-subj", "/CN=gpublob test CA", NULL};
  const char *new_req[] = {"req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                           "-keyout", key, "-out", csr, "-subj", "/CN=127.0.0.1", NULL};
  const char *sign[] = {"x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert,
                        "-days", "2", "-extfile", ext, NULL};
  return spill(ext, san, sizeof san - 1) || openssl(new_ca) || openssl(new_req) || openssl(sign) ? -1 : 0;
}

/* https: nginx with a certificate from a CA of the test's own.  TLS verifies the server
** by default: without --remote-ca the verification fails (one warning, exit 0, compiled
** locally); with --remote-ca naming the CA, a store, then a remote hit. */
static void test_https(void) {
  char ca[4200], cert[4200], key[4200]; /* tmp_path's buffers are a ring: kept here */
  snprintf(ca, sizeof ca, "%s", tmp_path("ca.pem"));
  snprintf(cert, sizeof cert, "%s", tmp_path("server.pem"));
  snprintf(key, sizeof key, "%s", tmp_path("server.key"));
  if (!have_program("/usr/bin/openssl") && !have_program("/bin/openssl")) {
    skip("https", "no openssl program (apt-get install openssl): the test makes its certificates with it");
    return;
  }
  const char *version[] = {NGINX, "-V", NULL};
  char *built = NULL;
  run(version, &built);
  int ssl = contains(built, "--with-http_ssl_module");
  free(built);
  if (!ssl) {
    skip("https", "this nginx has no ssl module (nginx -V)");
    return;
  }
  const char *tls[] = {cert, key};
  server s;
  if (make_tls(ca, cert, key) || nginx_start_tls(&s, "nginx-tls", tls)) {
    check(0, "https: a certificate made, nginx serves https", "port %d, %s", s.port, s.dir);
    return;
  }
  char url[200], *log = NULL;
  snprintf(url, sizeof url, "https://127.0.0.1:%d/tls", s.port);
  unsetenv("GPUBLOB_REMOTE_CA");
  const char *store[] = {"build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(),
                         "--remote-cache", url, "--remote-ca", ca,
                         "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("tls1.hsaco"), NULL};
  int rc = cli(store, &log);
  check(rc == 0 && same_file(tmp_path("tls1.hsaco"), reference()) && contains(log, "2 stored") && lacks(log, "warning"),
        "https: with --remote-ca, a compile stores over TLS", "exit %d\n%s", rc, shown(log));
  free(log);
  const char *unverified[] = {"build/gpublob", "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(),
                              "--remote-cache", url, "-t",
                              "amdgcn:gfx90a", IN, "-o", tmp_path("tls2.hsaco"), NULL};
  rc = cli(unverified, &log);
  check(rc == 0 && same_file(tmp_path("tls2.hsaco"), reference()) && count_lines(log, "warning: remote cache https://") == 1 &&
            contains(log, "the call goes on without it") && lacks(log, "time (front)") && contains(log, "time (compiler)"),
        "https: without --remote-ca the server is not trusted: one warning, compiled locally, exit 0",
        "exit %d\n%s", rc, shown(log));
  free(log);
  const char *hit[] = {front_alone(), "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(), "--remote-cache", url, "--remote-ca", ca,
                       "-t", "amdgcn:gfx90a", IN, "-o", tmp_path("tls3.hsaco"), NULL};
  rc = cli(hit, &log);
  check(rc == 0 && same_file(tmp_path("tls3.hsaco"), reference()) && contains(log, "time (front)") &&
            contains(log, "remote cache 2 hits, 0 misses") && lacks(log, "warning"),
        "https: with --remote-ca, an empty machine's front hits", "exit %d\n%s", rc, shown(log));
  free(log);
  nginx_stop(&s);
}

/* A token from the environment: sent as a bearer, and in no message, argv or cache file. */
static void test_token(void) {
  static const char token[] = "tok-5ecret-7e11tale";
  static raw r;
  if (raw_start(&r, "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\nGP")) {
    check(0, "token: a raw server", "%s", strerror(errno));
    return;
  }
  setenv("GPUBLOB_REMOTE_TOKEN", token, 1);
  char url[200];
  snprintf(url, sizeof url, "http://user:pa55word@127.0.0.1:%d/t", r.port);
  setenv("GPUBLOB_REMOTE_CACHE", url, 1);
  const char *dir = machine();
  const char *logfile = tmp_path("token.log");
  pid_t pid = fork();
  if (pid == 0) {
    int fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 1);
    dup2(fd, 2);
    execl("build/gpublob", "build/gpublob", "--cache-dir", dir, "--remote-timeout", "2000", "-t", "amdgcn:gfx90a", IN,
          "-o", tmp_path("token.hsaco"), (char *)NULL);
    _exit(127);
  }
  usleep(700000); /* the call is waiting on the stalled server */
  const char *ps[] = {"ps", "-eww", "-o", "args", NULL};
  char *procs = NULL;
  int ps_rc = run(ps, &procs);
  int st = 0;
  waitpid(pid, &st, 0);
  unsetenv("GPUBLOB_REMOTE_TOKEN");
  unsetenv("GPUBLOB_REMOTE_CACHE");
  size_t n;
  char *log = (char *)slurp(logfile, &n);
  check(WIFEXITED(st) && !WEXITSTATUS(st) && count_lines(log, "warning: remote cache http://***@127.0.0.1:") == 1,
        "token: the call goes on, one warning showing the URL without its credentials", "status %d\n%s", st,
        shown(log));
  pthread_mutex_lock(&r.mu);
  check(contains(r.request, "Authorization: Bearer tok-5ecret-7e11tale"), "token: the environment's token is sent",
        "%s", r.request);
  pthread_mutex_unlock(&r.mu);
  check(lacks(log, token) && lacks(log, "pa55word"), "token: in no message", "%s", shown(log));
  check(ps_rc == 0 && contains(procs, "build/gpublob") && lacks(procs, token), "token: in no process's argv (ps)",
        "%s", shown(procs));
  free(procs);
  free(log);
  char cmd[4600];
  snprintf(cmd, sizeof cmd, "grep -rqa -e '%s' -e pa55word '%s'", token, dir);
  check(system(cmd) != 0, "token: in no cache file", "%s", dir);
}

/* A server that answers PUT with a page (Apache's mod_dav: "201 Created" and HTML; a
** page past the tier's bound, 200 KB): its status decides, the page is dropped, the
** files are stored (both layouts: bazel's /ac/ record goes after its /cas/ value), and
** an empty machine's front hits them.  A refused PUT (403 and a page) is the tier's one
** warning. */
static void test_put_answers(void) {
  static dav servers[3];
  static const char *const status[] = {"201 Created", "201 Created", "403 Forbidden"};
  static const size_t page[] = {201, 200 << 10, 180};
  for (int i = 0; i < 3; i++) {
    dav *d = &servers[i];
    if (dav_start(d, status[i], page[i])) {
      check(0, "put answers: the dav server starts", "%s", strerror(errno));
      return;
    }
    for (int flat = 0; flat < 2; flat++) {
      char url[200], name[200], *log = NULL;
      snprintf(url, sizeof url, "http://127.0.0.1:%d/%s%s", d->port, layouts[flat], flat ? "?layout=flat" : "");
      pthread_mutex_lock(&d->mu);
      int puts0 = d->puts;
      pthread_mutex_unlock(&d->mu);
      int rc = compile(machine(), url, tmp_path("dav1.hsaco"), NULL, &log);
      pthread_mutex_lock(&d->mu);
      int puts = d->puts - puts0;
      pthread_mutex_unlock(&d->mu);
      if (i == 2) {
        snprintf(name, sizeof name, "put answers: a PUT refused with a page (%s) is one warning, exit 0", layouts[flat]);
        check(rc == 0 && same_file(tmp_path("dav1.hsaco"), reference()) && contains(log, "0 stored") &&
                  count_lines(log, "warning: remote cache") == 1 && contains(log, "PUT failed (HTTP 403)") && puts == 1,
              name, "exit %d, %d PUTs\n%s", rc, puts, shown(log));
        free(log);
        continue;
      }
      snprintf(name, sizeof name, "put answers: %s with a %zu-byte page (%s): both files stored, no warning",
               status[i], page[i], layouts[flat]);
      check(rc == 0 && same_file(tmp_path("dav1.hsaco"), reference()) && contains(log, "2 stored") &&
                lacks(log, "warning") && puts == (flat ? 2 : 4),
            name, "exit %d, %d PUTs\n%s", rc, puts, shown(log));
      free(log);
      const char *argv[] = {front_alone(), "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(), "--remote-cache", url, "-t",
                            "amdgcn:gfx90a", IN, "-o", tmp_path("dav2.hsaco"), NULL};
      rc = cli(argv, &log);
      snprintf(name, sizeof name, "put answers: %s with a %zu-byte page (%s): an empty machine's front hits",
               status[i], page[i], layouts[flat]);
      check(rc == 0 && same_file(tmp_path("dav2.hsaco"), reference()) && contains(log, "time (front)") &&
                contains(log, "remote cache 2 hits, 0 misses, 0 stored"),
            name, "exit %d\n%s", rc, shown(log));
      free(log);
    }
  }
}

/* Whether text holds none of the password: neither whole, nor any of its pieces
** between '/', '@', '?', '#' and ':' of 4 bytes or more. */
static int password_free(const char *text, const char *password) {
  if (!text || !lacks(text, password)) return 0;
  char piece[64];
  for (const char *p = password; *p;) {
    size_t n = strcspn(p, "/@?#:");
    snprintf(piece, sizeof piece, "%.*s", (int)n, p);
    if (n >= 4 && !lacks(text, piece)) return 0;
    p += n + (p[n] != 0);
  }
  return 1;
}

/* The lines of text that hold needle (a fresh string): ps's lines for gpublob's own
** processes.  The password's pieces are looked for there, not in every process on
** the machine: a CI runner's own programs may well have "next" in their argv. */
static char *lines_holding(const char *text, const char *needle) {
  size_t size = text ? strlen(text) + 1 : 1, used = 0;
  char *out = calloc(1, size);
  for (const char *line = text; out && line && *line;) {
    size_t n = strcspn(line, "\n");
    char *piece = strndup(line, n);
    if (piece && strstr(piece, needle)) used += (size_t)snprintf(out + used, size - used, "%s\n", piece);
    free(piece);
    line += n + (line[n] == '\n');
  }
  return out;
}

/* A folder with the front's programs and, as gpublob-compiler, a script that writes
** the front's hand-off ($GPUBLOB_REMOTE_FAULT) to a file, then runs the real compiler. */
static const char *handoff_probe(const char *handoff) {
  static char front[4400];
  const char *dir = tmp_path("probe");
  mkdir(dir, 0700);
  char cwd[2048], script[9000], path[4400];
  if (!getcwd(cwd, sizeof cwd)) return NULL;
  const char *names[] = {"gpublob-front", "gpublob"};
  for (size_t i = 0; i < 2; i++) {
    snprintf(front, sizeof front, "%s/%s", dir, names[i]);
    char from[64];
    snprintf(from, sizeof from, "build/%s", names[i]);
    size_t n;
    unsigned char *bytes = slurp(from, &n);
    int ok = bytes && !spill(front, bytes, n) && !chmod(front, 0755);
    free(bytes);
    if (!ok) return NULL;
  }
  snprintf(script, sizeof script, "#!/bin/sh\nprintf '%%s' \"$GPUBLOB_REMOTE_FAULT\" > '%s'\nexec '%s/build/gpublob-compiler' \"$@\"\n",
           handoff, cwd);
  snprintf(path, sizeof path, "%s/gpublob-compiler", dir);
  return spill(path, script, strlen(script)) || chmod(path, 0755) ? NULL : front;
}

/* A password holding '/', '@', '?' and '#' (the URL's, or $GPUBLOB_REMOTE_PASSWORD's):
** the host is read after the URL's last '@', so against nginx (which takes any
** credentials) the URL stores and hits in both layouts; against a stalled server, the
** password is in no message, not in the front's hand-off to the compiler, and in no
** process's argv (ps), the URL and password given by the environment. */
static void test_password(const server *s) {
  static const char *const passwords[] = {"hunter2/x", "Pa55/w0rd@s3cr#t?next"};
  for (int flat = 0; flat < 2; flat++) {
    const char *pw = passwords[1];
    char url[400], name[200], *log = NULL;
    snprintf(url, sizeof url, "http://alice:%s@127.0.0.1:%d/pw-%s%s", pw, s->port, layouts[flat],
             flat ? "?layout=flat" : "");
    setenv("GPUBLOB_REMOTE_CACHE", url, 1);
    int rc = compile(machine(), NULL, tmp_path("pw1.hsaco"), "--remote-timeout=" HIT_TIMEOUT, &log);
    snprintf(name, sizeof name, "password: a URL whose password holds /@?# stores (%s)", layouts[flat]);
    check(rc == 0 && contains(log, "2 stored") && lacks(log, "warning") && password_free(log, pw), name,
          "exit %d\n%s", rc, shown(log));
    free(log);
    const char *argv[] = {front_alone(), "--time", "--remote-timeout", HIT_TIMEOUT, "--cache-dir", machine(), "-t",
                          "amdgcn:gfx90a", IN, "-o", tmp_path("pw2.hsaco"), NULL};
    rc = cli(argv, &log);
    snprintf(name, sizeof name, "password: a URL whose password holds /@?#: an empty machine's front hits (%s)",
             layouts[flat]);
    check(rc == 0 && same_file(tmp_path("pw2.hsaco"), reference()) && contains(log, "remote cache 2 hits"), name,
          "exit %d\n%s", rc, shown(log));
    free(log);
    unsetenv("GPUBLOB_REMOTE_CACHE");
  }
  char *access = access_log(s), want[64];
  snprintf(want, sizeof want, "PUT /pw-bazel/cas/");
  check(contains(access, want) && contains(access, "GET /pw-flat/v3/") && password_free(access, passwords[1]),
        "password: nginx was asked at the URL's host and prefix (its access log)", "%s", shown(access));
  free(access);
  static raw stall;
  if (raw_start(&stall, "HTTP/1.1 200 OK\r\nContent-Length: 200\r\n\r\nGP")) {
    check(0, "password: a raw server", "%s", strerror(errno));
    return;
  }
  for (int w = 0; w < 3; w++) { /* the URL's (two), then the environment's */
    const char *pw = passwords[w < 2 ? w : 1];
    char url[400], handoff[4300];
    if (w < 2) snprintf(url, sizeof url, "http://alice:%s@127.0.0.1:%d/pw", pw, stall.port);
    else snprintf(url, sizeof url, "http://alice@127.0.0.1:%d/pw", stall.port);
    if (w == 2) setenv("GPUBLOB_REMOTE_PASSWORD", pw, 1);
    setenv("GPUBLOB_REMOTE_CACHE", url, 1);
    snprintf(handoff, sizeof handoff, "%s", tmp_path("handoff.txt"));
    unlink(handoff);
    const char *front = handoff_probe(handoff), *dir = machine(), *logfile = tmp_path("pw.log");
    check(front != NULL, "password: the hand-off probe is made", "%s", strerror(errno));
    if (!front) return;
    pid_t pid = fork();
    if (pid == 0) {
      int fd = open(logfile, O_WRONLY | O_CREAT | O_TRUNC, 0600);
      dup2(fd, 1);
      dup2(fd, 2);
      execl(front, front, "--cache-dir", dir, "--remote-timeout", "1500", "-t", "amdgcn:gfx90a", IN, "-o",
            tmp_path("pw3.hsaco"), (char *)NULL);
      _exit(127);
    }
    usleep(600000); /* the front is waiting on the stalled server */
    const char *ps[] = {"ps", "-eww", "-o", "args", NULL};
    char *all_procs = NULL;
    int ps_rc = run(ps, &all_procs), st = 0;
    char *procs = lines_holding(all_procs, "gpublob");
    free(all_procs);
    waitpid(pid, &st, 0);
    unsetenv("GPUBLOB_REMOTE_CACHE");
    unsetenv("GPUBLOB_REMOTE_PASSWORD");
    size_t n;
    char *log = (char *)slurp(logfile, &n), *given = (char *)slurp(handoff, &n), name[200];
    const char *where = w == 2 ? "$GPUBLOB_REMOTE_PASSWORD" : pw;
    snprintf(name, sizeof name, "password %s: the call goes on, one warning, the URL shown without it", where);
    check(WIFEXITED(st) && !WEXITSTATUS(st) && same_file(tmp_path("pw3.hsaco"), reference()) &&
              count_lines(log, "warning: remote cache http://***@127.0.0.1:") == 1,
          name, "status %d\n%s", st, shown(log));
    snprintf(name, sizeof name, "password %s: in no message", where);
    check(password_free(log, pw) && lacks(log, "alice"), name, "%s", shown(log));
    snprintf(name, sizeof name, "password %s: not in the front's hand-off to the compiler", where);
    check(given && contains(given, "remote-off") && contains(given, "warning remote cache http://***@") &&
              password_free(given, pw),
          name, "%s", shown(given));
    snprintf(name, sizeof name, "password %s: in no process's argv (ps)", where);
    check(ps_rc == 0 && contains(procs, "probe/gpublob") && password_free(procs, pw), name, "%s", shown(procs));
    free(procs);
    free(log);
    free(given);
  }
}
#endif

/* Whether the ELF file at path asks for an interpreter (PT_INTERP): a dynamically
** linked program does, a static one does not.  -1 when it is not a readable ELF64. */
static int has_interp(const char *path) {
  size_t n;
  unsigned char *b = slurp(path, &n);
  int interp = -1;
  Elf64_Ehdr eh;
  if (b && is_elf(b, n) && n >= sizeof eh) {
    memcpy(&eh, b, sizeof eh);
    interp = eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr) &&
             eh.e_phoff <= n && eh.e_phnum <= (n - eh.e_phoff) / sizeof(Elf64_Phdr) ? 0 : -1;
    for (unsigned i = 0; !interp && i < eh.e_phnum; i++) {
      Elf64_Phdr ph;
      memcpy(&ph, b + eh.e_phoff + i * sizeof ph, sizeof ph);
      interp = ph.p_type == PT_INTERP;
    }
  }
  free(b);
  return interp;
}

/* The objects build.ninja links into build/gpublob (its "build build/gpublob:" line,
** with its continuations), space-separated, into out: their count. */
static int front_objects(char *out, size_t size) {
  size_t n;
  char *ninja = (char *)slurp("build.ninja", &n), *line = ninja ? strstr(ninja, "\nbuild build/gpublob: ") : NULL;
  int count = 0;
  out[0] = 0;
  char *save = NULL;
  for (char *w = line ? strtok_r(line + 22, " \n", &save) : NULL; w; w = strtok_r(NULL, " \n", &save)) {
    if (!strcmp(w, "$")) continue; /* a line's continuation */
    if (w[0] == '$' || strchr(w, '=')) break;
    size_t len = strlen(w), at = strlen(out);
    if (len > 2 && !strcmp(w + len - 2, ".o") && at + len + 2 < size) {
      snprintf(out + at, size - at, "%s ", w);
      count++;
    }
  }
  free(ninja);
  return count;
}

/* The house rule: the static front loads no library (one would bring a second libc).
** Its own objects call no dlopen (static glibc itself links dlopen in, for its own
** NSS, iconv and IDN modules, so the program's symbol table has it whatever gpublob
** does: the objects are what is checked), it names no libcurl, and a call with an
** http:// tier through build/gpublob alone (no gpublob-front beside it to hand the
** call to, no compiler) fails cleanly, loading nothing. */
static void test_static_front(void) {
  int interp = has_interp("build/gpublob");
  if (interp != 0) {
    skip("static front", interp < 0 ? "build/gpublob is not an ELF64 program" : "build/gpublob is linked dynamically");
    return;
  }
  const char *nm = have_program("/usr/lib/llvm-22/bin/llvm-nm") ? "/usr/lib/llvm-22/bin/llvm-nm" : "nm";
  char objects[8192], cmd[8400];
  int nobj = front_objects(objects, sizeof objects);
  check(nobj >= 2 && contains(objects, "build/front/gpublob.o"), "static front: its objects, from build.ninja", "%s",
        objects);
  snprintf(cmd, sizeof cmd, "%s -u %s 2>&1 | grep -E '\\bdl(m?open|sym)\\b'", nm, objects);
  char *found = NULL;
  const char *sh[] = {"sh", "-c", cmd, NULL};
  int rc = run(sh, &found);
  check(rc == 1 && found && !*found, "static front: none of its objects calls dlopen or dlsym", "%s\n%s", cmd,
        shown(found));
  free(found);
  /* the same look finds what is there: the dynamic twin's core loads libcurl */
  snprintf(cmd, sizeof cmd, "%s -u build/front_twin/gpublob.o 2>&1 | grep -E '\\bdlopen\\b'", nm);
  found = NULL;
  rc = run(sh, &found);
  if (GPUBLOB_CURL)
    check(rc == 0 && contains(found, "dlopen"), "static front: the same look finds the dynamic twin's dlopen", "%s\n%s",
          cmd, shown(found));
  free(found);
  size_t n;
  unsigned char *bin = slurp("build/gpublob", &n);
  check(bin && !memmem(bin, n, "libcurl.so", 10) && !memmem(bin, n, "libcrypto.so", 12),
        "static front: names no libcurl or libcrypto to load", "%zu bytes", n);
  free(bin);
  const char *alone = tmp_path("static-alone");
  char prog[4300];
  mkdir(alone, 0700);
  snprintf(prog, sizeof prog, "%s/gpublob", alone);
  bin = slurp("build/gpublob", &n);
  check(bin && !spill(prog, bin, n) && !chmod(prog, 0755), "static front: copied alone", "%s", prog);
  free(bin);
  int strace = have_program("/usr/bin/strace");
  const char *call[] = {"/usr/bin/strace", "-f", "-e", "trace=openat,open,execve", prog, "--cache-dir", machine(),
                        "--remote-cache", "http://127.0.0.1:1/alone", "-t", "amdgcn:gfx90a", IN, "-o",
                        tmp_path("alone.hsaco"), NULL};
  char *log = NULL;
  rc = run(strace ? call : call + 4, &log);
  check(rc >= 1 && rc <= 127 && contains(log, "gpublob: error: cannot run the compiler") && !exists(tmp_path("alone.hsaco")),
        "static front: an http:// tier with neither twin nor compiler beside it fails cleanly (exit 1..127)",
        "exit %d\n%s", rc, shown(log));
  if (strace) check(lacks(log, "libcurl") && lacks(log, ".so"), "static front: it opens no library (strace)", "%s", shown(log));
  else skip("static front: strace", "no strace: what the call opens is not watched");
  free(log);
}

/* A URL the tier refuses (no host, another query, a fragment), and a build without
** libcurl: one warning, never an error. */
static void test_refused_urls(void) {
  gpublob *g;
  gpublob_open(&g);
  static const char *const urls[] = {"http:///prefix", "http://127.0.0.1:1/p?layout=tree", "http://127.0.0.1:1/p#x"};
  for (size_t i = 0; i < sizeof urls / sizeof *urls; i++) {
    gpublob_options o = {.version = GPUBLOB_OPTIONS_VERSION, .target = "amdgcn:gfx90a", .cache_dir = machine(),
                         .remote_cache = urls[i]};
    gpublob_input in = {.path = IN};
    gpublob_result r;
    int rc = gpublob_cache_lookup(g, &o, &in, &r);
    const char *w = gpublob_warnings(g);
    check(rc == GPUBLOB_NOTCACHED && count_lines(w, "remote cache") == 1 &&
              contains(w, GPUBLOB_CURL ? "not an http[s]://" : "built without libcurl"),
          "urls: a URL not understood is one warning", "%s: %d: %s", urls[i], rc, w);
  }
  gpublob_close(g);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  unsetenv("GPUBLOB_REMOTE_CACHE");
  unsetenv("GPUBLOB_REMOTE_PASSWORD");
  unsetenv("GPUBLOB_REMOTE_TOKEN");
  unsetenv("GPUBLOB_REMOTE_FAULT");
  signal(SIGPIPE, SIG_IGN);
  test_refused_urls();
  test_static_front();
#if GPUBLOB_CURL
  atexit(stop_live);
  if (!have_program(NGINX)) {
    skip("http", "no nginx (" NGINX "; apt-get install nginx-light): the server tests need one");
    return report();
  }
  if (!need_rocm("http: every server case (saxpy_amdgcn.ll)")) return report();
  reference();
  server s;
  if (nginx_start(&s, "nginx")) {
    check(0, "nginx starts", "port %d, %s", s.port, s.dir);
    return report();
  }
  for (int flat = 0; flat < 2; flat++) {
    test_shared(&s, flat);
    test_hostile(&s, flat);
  }
  test_mlir_shared(&s);
  test_password(&s);
  test_faults(&s);
  test_read_only();
  test_token();
  test_put_answers();
  test_https();
#else
  skip("http", "this build has no HTTP tier: configure found no curl/curl.h (apt-get install libcurl4-openssl-dev)");
#endif
  return report();
}
