/* src/remote_redis.c: The remote tier's Redis backend: redis:// and unix:// servers,
** through hiredis.  The tier around it (src/cache_remote.c) is behind the local cache,
** validates every value before it is served, keeps read-only mode and the size limit,
** and turns itself off at the first fault; this part speaks to the server.  It holds
** exactly the local cache's files (header and payload) under "gpublob:v3:KIND:HEX":
** one connection per call, opened when first needed, with a connect and a command
** timeout; a value is fetched with a size bound (GETRANGE).  The password comes from
** the URL or $GPUBLOB_REMOTE_PASSWORD and never reaches a message.  Compiled only with
** hiredis (GPUBLOB_REMOTE); without it a redis:// URL is one warning. */

#ifndef GPUBLOB_REMOTE
#define GPUBLOB_REMOTE 0
#endif

/* ---- the remote tier's Redis backend ---- */
/* Its schemes, redis:// and unix://, in a build without hiredis too (which says so). */
static int redis_wants(const char *url) { return !strncmp(url, "redis://", 8) || !strncmp(url, "unix://", 7); }

#if GPUBLOB_REMOTE
#include <hiredis/hiredis.h>

typedef struct remote_redis {
  strbuf host, path, user, password; /* path: a unix socket's */
  int port, db;
  redisContext *ctx;                  /* NULL until first needed */
} remote_redis;

/* A decimal number of at most max, the whole of [s, s+n); -1 otherwise. */
static long redis_number(const char *s, size_t n, long max) {
  long v = 0;
  if (!n) return -1;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)s[i]) || v > max / 10) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v <= max ? v : -1;
}

/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH: 0, or -1. */
static int redis_parse(remote_redis *r, const char *url) {
  r->port = 6379;
  if (!strncmp(url, "unix://", 7)) {
    if (url[7] != '/' || !url[8]) return -1;
    sb_add(&r->path, url + 7);
    return 0;
  }
  if (strncmp(url, "redis://", 8)) return -1;
  const char *s = url + 8, *at = cache_remote_credentials_end(url); /* a password may hold '@' and '/' */
  const char *end = (at ? at : s) + strcspn(at ? at : s, "/");
  if (at) {
    const char *colon = memchr(s, ':', (size_t)(at - s));
    if (!colon) return -1; /* a password comes after a colon: redis://:PASSWORD@HOST */
    sb_addn(&r->user, s, (size_t)(colon - s));
    sb_addn(&r->password, colon + 1, (size_t)(at - colon - 1));
    s = at + 1;
  }
  const char *colon = memchr(s, ':', (size_t)(end - s));
  const char *host_end = colon ? colon : end;
  if (host_end == s) sb_add(&r->host, "127.0.0.1");
  else sb_addn(&r->host, s, (size_t)(host_end - s));
  if (colon && (r->port = (int)redis_number(colon + 1, (size_t)(end - colon - 1), 65535)) <= 0) return -1;
  if (*end && end[1] && (r->db = (int)redis_number(end + 1, strlen(end + 1), 1 << 20)) < 0) return -1;
  return r->host.oom || r->user.oom || r->password.oom ? -1 : 0;
}

static void redis_free(remote_redis *s) {
  if (s->ctx) redisFree(s->ctx);
  if (s->password.s) memset(s->password.s, 0, s->password.cap);
  strbuf *const bufs[] = {&s->host, &s->path, &s->user, &s->password};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) sb_free(bufs[i]);
  free(s);
}

/* The server's settings from its URL and the environment: 0, or -1 with one warning. */
static int redis_open(digest_cache *c, cache_remote_tier *r, const gpublob_options *o) {
  remote_redis *s = calloc(1, sizeof *s);
  if (!s || redis_parse(s, o->remote_cache)) {
    handle_add_warning(c->g, "remote cache %s: not a redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], unix:///PATH, "
                "http://HOST[:PORT]/PREFIX or https:// URL; not used", sb_str(&r->shown));
    c->g->stats.remote_errors = 1;
    if (s) redis_free(s);
    return -1;
  }
  const char *env = getenv("GPUBLOB_REMOTE_PASSWORD");
  if (!s->password.len && env && *env) sb_add(&s->password, env);
  r->backend = s;
  return 0;
}

/* Its key on the server: a prefix with the layout's version, the kind, the key. */
static void redis_key(const digest_key128 *k, char kind, char out[48]) {
  char hex[33];
  cache_dir_key_hex(k, hex);
  snprintf(out, 48, "gpublob:" CACHE_LAYOUT ":%c:%s", kind, hex);
}

/* One command, SIGPIPE blocked in this thread meanwhile and consumed (a server gone
** mid-write shows as an error), never raised.  NULL and a fault when it failed; an
** error reply is returned for the caller to judge. */
static redisReply *redis_command(digest_cache *c, const char *what, int argc, const char **argv, const size_t *len) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  redisContext *ctx = ((remote_redis *)c->remote->backend)->ctx;
  redisReply *reply = redisCommandArgv(ctx, argc, argv, len);
  sigset_t pending;
  if (!sigpending(&pending) && sigismember(&pending, SIGPIPE))
    sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!reply) cache_remote_fault(c, what, ctx->errstr);
  return reply;
}

/* A command whose reply must not be an error (AUTH, SELECT): 0, or -1 and a fault. */
static int redis_simple(digest_cache *c, const char *what, int argc, const char **argv) {
  size_t len[3];
  for (int i = 0; i < argc; i++) len[i] = strlen(argv[i]);
  redisReply *reply = redis_command(c, what, argc, argv, len);
  if (!reply) return -1;
  int bad = reply->type == REDIS_REPLY_ERROR;
  if (bad) cache_remote_fault(c, what, reply->str);
  freeReplyObject(reply);
  return bad ? -1 : 0;
}

#if GPUBLOB_STATIC_FRONT
#include <arpa/inet.h>
/* A statically linked front resolves host names with glibc's built-in services
** only, files and dns.  Any other service on /etc/nsswitch.conf's hosts line
** (mdns4_minimal, resolve, myhostname, ...) is a shared module, and loading it
** into a static program brings a second libc with it.  The front does not ask
** for such a name: it leaves the remote tier to gpublob-compiler, which is
** linked dynamically and asks for it on the local miss.  No fault is recorded. */
static int host_needs_module(const char *host) {
  unsigned char addr[16];
  if (inet_pton(AF_INET, host, addr) == 1 || inet_pton(AF_INET6, host, addr) == 1) return 0;
  FILE *f = fopen("/etc/nsswitch.conf", "re");
  char line[1024];
  int needs = 0, options = 0;
  while (f && fgets(line, sizeof line, f)) {
    char *w = line + strspn(line, " \t"), *save = NULL;
    if (strncmp(w, "hosts:", 6)) continue;
    for (w = strtok_r(w + 6, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
      if (*w == '[') options = 1; /* [NOTFOUND=return] and the like name no service */
      if (!options && strcmp(w, "files") && strcmp(w, "dns")) needs = 1;
      if (options && w[strlen(w) - 1] == ']') options = 0;
    }
  }
  if (f) fclose(f);
  return needs;
}
#else
static int host_needs_module(const char *host) { return (void)host, 0; }
#endif

/* The connection, made when first needed: connect, AUTH, SELECT, each bounded by the
** timeout.  0, or -1 when the tier is (now) off, or not this program's to ask. */
static int redis_ready(digest_cache *c) {
  cache_remote_tier *r = c->remote;
  remote_redis *s = r->backend;
  if (r->dead || r->not_here) return -1;
  if (s->ctx) return 0;
  if (!s->path.len && host_needs_module(sb_str(&s->host))) {
    r->not_here = 1;
    return -1;
  }
  struct timeval tv = {(time_t)(r->timeout_ms / 1000), (suseconds_t)(r->timeout_ms % 1000) * 1000};
  redisContext *ctx = s->path.len ? redisConnectUnixWithTimeout(sb_str(&s->path), tv)
                                  : redisConnectWithTimeout(sb_str(&s->host), s->port, tv);
  if (!ctx || ctx->err) {
    char detail[160];
    snprintf(detail, sizeof detail, "%s", ctx ? ctx->errstr : "out of memory");
    if (ctx) redisFree(ctx);
    cache_remote_fault(c, "cannot connect", detail);
    return -1;
  }
  s->ctx = ctx;
  if (redisSetTimeout(ctx, tv) != REDIS_OK) {
    cache_remote_fault(c, "cannot set its timeout", ctx->errstr);
    return -1;
  }
  if (s->password.len) {
    const char *auth[] = {"AUTH", sb_str(&s->user), sb_str(&s->password)};
    if (!s->user.len) auth[1] = auth[2];
    if (redis_simple(c, "AUTH failed", s->user.len ? 3 : 2, auth)) return -1;
  }
  char db[16];
  snprintf(db, sizeof db, "%d", s->db);
  const char *select[] = {"SELECT", db};
  if (s->db && redis_simple(c, "SELECT failed", 2, select)) return -1;
  return 0;
}

/* The server's bytes for the file, at most the header and max payload bytes (GETRANGE:
** a larger value is never transferred whole), into m->bytes: 0; -1 when the server
** has none (or one too long); -2 when it was not asked (the tier off, a fault now). */
static int redis_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  cache_remote_tier *r = c->remote;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  int rc = -2;
  if (!redis_ready(c)) {
    char key[48], last[32];
    redis_key(k, kind, key);
    unsigned long long limit = r->max + sizeof(digest_entry_header);
    snprintf(last, sizeof last, "%llu", limit); /* limit + 1 bytes: more than limit is too long */
    const char *argv[] = {"GETRANGE", key, "0", last};
    const size_t len[] = {8, strlen(key), 1, strlen(last)};
    redisReply *reply = redis_command(c, "GET failed", 4, argv, len);
    if (reply && reply->type == REDIS_REPLY_ERROR && strncmp(reply->str, "WRONGTYPE", 9))
      cache_remote_fault(c, "GET failed", reply->str);
    else if (reply)
      rc = -1; /* an answer: none, empty, another type, too long, or the bytes below */
    if (reply && reply->type == REDIS_REPLY_STRING && reply->len > 0 && (unsigned long long)reply->len <= limit &&
        (m->bytes = malloc(reply->len))) {
      memcpy(m->bytes, reply->str, reply->len);
      m->len = reply->len;
      c->g->stats.remote_bytes_read += reply->len;
      rc = 0;
    }
    if (reply) freeReplyObject(reply);
  }
  c->g->stats.remote_ms += util_now_ms() - t;
  pthread_mutex_unlock(&r->mu);
  return rc;
}

/* The file (head, then payload) stored on the server (SET).  A fault is a warning,
** as everywhere. */
static void redis_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn, const void *data,
                      size_t n) {
  cache_remote_tier *r = c->remote;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  char *value = malloc(hn + n);
  if (value && !redis_ready(c)) {
    char key[48];
    redis_key(k, kind, key);
    memcpy(value, head, hn);
    memcpy(value + hn, data, n);
    const char *argv[] = {"SET", key, value};
    const size_t len[] = {3, strlen(key), hn + n};
    redisReply *reply = redis_command(c, "SET failed", 3, argv, len);
    if (reply && reply->type == REDIS_REPLY_ERROR) cache_remote_fault(c, "SET failed", reply->str);
    else if (reply) {
      c->g->stats.remote_stores++;
      c->g->stats.remote_bytes_written += hn + n;
    }
    if (reply) freeReplyObject(reply);
  }
  free(value);
  c->g->stats.remote_ms += util_now_ms() - t;
  pthread_mutex_unlock(&r->mu);
}

/* After a fault: the connection closed (the tier is off for the rest of the call). */
static void redis_off(cache_remote_tier *r) {
  remote_redis *s = r->backend;
  if (s->ctx) redisFree(s->ctx);
  s->ctx = NULL;
}

static void redis_close(cache_remote_tier *r) {
  redis_free(r->backend);
  r->backend = NULL;
}
#else
/* Built without hiredis: a URL is one warning, and the call goes on without the tier. */
static int redis_open(digest_cache *c, cache_remote_tier *r, const gpublob_options *o) {
  handle_add_warning(c->g, "remote cache %s: this gpublob was built without hiredis; not used", sb_str(&r->shown));
  c->g->stats.remote_errors = 1;
  return -1;
}
static int redis_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) { return -2; }
static void redis_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                      const void *data, size_t n) {}
static void redis_off(cache_remote_tier *r) {}
static void redis_close(cache_remote_tier *r) {}
#endif

GPUBLOB_PRIVATE const cache_remote_ops remote_redis_ops = {redis_wants, redis_open, redis_get, redis_put,
                                                           redis_off, redis_close, NULL};
