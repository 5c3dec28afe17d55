/* src/cache_remote.c: The remote tier behind the local cache: a server that many
** machines share, so a kernel compiled on one is a hit on all.  This part is the tier
** (the URL's scheme picks the backend, the settings, the one fault a call) and its
** Redis backend; http:// and https:// are src/remote_http.c's.  It holds exactly the
** local cache's files (header and payload) under "gpublob:v3:KIND:HEX"; the local
** cache is looked up first, a remote hit is validated as a local file is and copied
** into it, and a compile stores in both.  A remote value is anyone's bytes: it is
** fetched with a size bound, checked (length, kind, key, XXH3-128) and never served
** when it fails, and the compile's store overwrites it.  Faults never fail a call:
** one connection per call, opened when first needed, with a connect and a command
** timeout; the first fault (down, refusing, hung, a bad password) turns the tier off
** for the rest of the call with one warning, so it costs at most one timeout.  File
** digests ('d', a file's inode and times on this machine) stay local.
** Redis is compiled only with hiredis (GPUBLOB_REMOTE); without it a redis:// URL is
** one warning. */

/* ---- the remote tier: a Redis server behind the local cache ---- */
#ifndef GPUBLOB_REMOTE
#define GPUBLOB_REMOTE 0
#endif

enum { REMOTE_TIMEOUT_MS = 50 };
#define REMOTE_MAX_DEFAULT (64ULL << 20)

/* The URL for messages: whatever is between "//" and the last "@" (a user, a password,
** which may hold '@' or '/' itself) hidden. */
static void remote_shown(strbuf *b, const char *url) {
  const char *auth = strstr(url, "//"), *at = auth ? strrchr(auth + 2, '@') : NULL;
  if (at) sb_addf(b, "%.*s***%s", (int)(auth + 2 - url), url, at);
  else sb_add(b, url);
}

/* A decimal number of at most max, the whole of [s, s+n); -1 otherwise. */
static long remote_number(const char *s, size_t n, long max) {
  long v = 0;
  if (!n) return -1;
  for (size_t i = 0; i < n; i++) {
    if (!isdigit((unsigned char)s[i]) || v > max / 10) return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v <= max ? v : -1;
}

/* redis://[[USER]:PASSWORD@]HOST[:PORT][/DB] or unix:///PATH: 0, or -1. */
static int remote_parse(cache_remote_tier *r, const char *url) {
  r->port = 6379;
  if (!strncmp(url, "unix://", 7)) {
    if (url[7] != '/' || !url[8]) return -1;
    sb_add(&r->path, url + 7);
    return 0;
  }
  if (strncmp(url, "redis://", 8)) return -1;
  const char *s = url + 8, *at = strrchr(s, '@'); /* a password may hold '@' and '/' */
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
  if (colon && (r->port = (int)remote_number(colon + 1, (size_t)(end - colon - 1), 65535)) <= 0) return -1;
  if (*end && end[1] && (r->db = (int)remote_number(end + 1, strlen(end + 1), 1 << 20)) < 0) return -1;
  return r->host.oom || r->user.oom || r->password.oom ? -1 : 0;
}

static void remote_free(cache_remote_tier *r);
static void remote_disconnect(cache_remote_tier *r);

/* What every backend shares: its timeout, size limit, read-only mode, one lock. */
static void remote_settle(cache_remote_tier *r, const gpublob_options *o) {
  r->timeout_ms = o->remote_timeout_ms ? o->remote_timeout_ms : REMOTE_TIMEOUT_MS;
  r->max = o->remote_max ? o->remote_max : REMOTE_MAX_DEFAULT;
  if (r->max > (1ULL << 40)) r->max = 1ULL << 40; /* no cache file is a terabyte; max + a header never wraps */
  r->read_only = !!(o->flags & GPUBLOB_FLAG_REMOTE_READ_ONLY);
  pthread_mutex_init(&r->mu, NULL);
}

/* The tier of the options, if they name one: kept for the call, connected when first
** needed.  A URL not understood, or a build without hiredis, is one warning. */
GPUBLOB_PRIVATE void cache_remote_open(digest_cache *c, const gpublob_options *o) {
  if (!o->remote_cache || !*o->remote_cache) return;
  cache_remote_tier *r = calloc(1, sizeof *r);
  if (!r) return;
  remote_shown(&r->shown, o->remote_cache);
  if (remote_http_wants(o->remote_cache)) {
    remote_settle(r, o);
    if (remote_http_open(c, r, o)) remote_free(r);
    else c->remote = r;
    return;
  }
  if (!GPUBLOB_REMOTE) {
    handle_add_warning(c->g, "remote cache %s: this gpublob was built without hiredis; not used", sb_str(&r->shown));
    c->g->stats.remote_errors = 1;
    remote_free(r);
    return;
  }
  if (remote_parse(r, o->remote_cache)) {
    handle_add_warning(c->g, "remote cache %s: not a redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], unix:///PATH, "
                "http://HOST[:PORT]/PREFIX or https:// URL; not used", sb_str(&r->shown));
    c->g->stats.remote_errors = 1;
    remote_free(r);
    return;
  }
  const char *env = getenv("GPUBLOB_REMOTE_PASSWORD");
  if (!r->password.len && env && *env) sb_add(&r->password, env);
  remote_settle(r, o);
  c->remote = r;
}

/* The failure of a tier's first fault: the tier is off for the rest of the call, with
** one warning naming the URL (its credentials hidden). */
GPUBLOB_PRIVATE void cache_remote_fault(digest_cache *c, const char *what, const char *detail) {
  cache_remote_tier *r = c->remote;
  r->dead = 1;
  c->g->stats.remote_errors = 1;
  handle_add_warning(c->g, "remote cache %s: %s (%s); the call goes on without it", sb_str(&r->shown), what,
              detail && *detail ? detail : "no detail");
  remote_disconnect(r);
}

#if GPUBLOB_REMOTE
#include <hiredis/hiredis.h>

/* Its key on the server: a prefix with the layout's version, the kind, the key. */
static void remote_key(const digest_key128 *k, char kind, char out[48]) {
  char hex[33];
  cache_dir_key_hex(k, hex);
  snprintf(out, 48, "gpublob:" CACHE_LAYOUT ":%c:%s", kind, hex);
}

/* One command, SIGPIPE blocked in this thread meanwhile and consumed (a server gone
** mid-write shows as an error), never raised.  NULL and a fault when it failed; an
** error reply is returned for the caller to judge. */
static redisReply *remote_command(digest_cache *c, const char *what, int argc, const char **argv, const size_t *len) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  redisContext *ctx = c->remote->ctx;
  redisReply *reply = redisCommandArgv(ctx, argc, argv, len);
  sigset_t pending;
  if (!sigpending(&pending) && sigismember(&pending, SIGPIPE))
    sigtimedwait(&pipe_set, NULL, &(struct timespec){0, 0});
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (!reply) cache_remote_fault(c, what, ctx->errstr);
  return reply;
}

/* A command whose reply must not be an error (AUTH, SELECT): 0, or -1 and a fault. */
static int remote_simple(digest_cache *c, const char *what, int argc, const char **argv) {
  size_t len[3];
  for (int i = 0; i < argc; i++) len[i] = strlen(argv[i]);
  redisReply *reply = remote_command(c, what, argc, argv, len);
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
static int remote_ready(digest_cache *c) {
  cache_remote_tier *r = c->remote;
  if (r->dead || r->not_here) return -1;
  if (r->ctx) return 0;
  if (!r->path.len && host_needs_module(sb_str(&r->host))) {
    r->not_here = 1;
    return -1;
  }
  struct timeval tv = {(time_t)(r->timeout_ms / 1000), (suseconds_t)(r->timeout_ms % 1000) * 1000};
  redisContext *ctx = r->path.len ? redisConnectUnixWithTimeout(sb_str(&r->path), tv)
                                  : redisConnectWithTimeout(sb_str(&r->host), r->port, tv);
  if (!ctx || ctx->err) {
    char detail[160];
    snprintf(detail, sizeof detail, "%s", ctx ? ctx->errstr : "out of memory");
    if (ctx) redisFree(ctx);
    cache_remote_fault(c, "cannot connect", detail);
    return -1;
  }
  r->ctx = ctx;
  if (redisSetTimeout(ctx, tv) != REDIS_OK) {
    cache_remote_fault(c, "cannot set its timeout", ctx->errstr);
    return -1;
  }
  if (r->password.len) {
    const char *auth[] = {"AUTH", sb_str(&r->user), sb_str(&r->password)};
    if (!r->user.len) auth[1] = auth[2];
    if (remote_simple(c, "AUTH failed", r->user.len ? 3 : 2, auth)) return -1;
  }
  char db[16];
  snprintf(db, sizeof db, "%d", r->db);
  const char *select[] = {"SELECT", db};
  if (r->db && remote_simple(c, "SELECT failed", 2, select)) return -1;
  return 0;
}

/* The server's bytes for the file, at most the header and max payload bytes (GETRANGE:
** a larger value is never transferred whole), into m->bytes: 0; -1 when the server
** has none (or one too long); -2 when it was not asked (a file digest, the tier off,
** a fault now). */
static int redis_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  cache_remote_tier *r = c->remote;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  int rc = -2;
  if (!remote_ready(c)) {
    char key[48], last[32];
    remote_key(k, kind, key);
    unsigned long long limit = r->max + sizeof(digest_entry_header);
    snprintf(last, sizeof last, "%llu", limit); /* limit + 1 bytes: more than limit is too long */
    const char *argv[] = {"GETRANGE", key, "0", last};
    const size_t len[] = {8, strlen(key), 1, strlen(last)};
    redisReply *reply = remote_command(c, "GET failed", 4, argv, len);
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

/* The file (head, then payload) stored on the server, unless the tier is read-only,
** off, or the payload over its limit.  A fault is a warning, as everywhere. */
static void redis_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn, const void *data,
                      size_t n) {
  cache_remote_tier *r = c->remote;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  char *value = malloc(hn + n);
  if (value && !remote_ready(c)) {
    char key[48];
    remote_key(k, kind, key);
    memcpy(value, head, hn);
    memcpy(value + hn, data, n);
    const char *argv[] = {"SET", key, value};
    const size_t len[] = {3, strlen(key), hn + n};
    redisReply *reply = remote_command(c, "SET failed", 3, argv, len);
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

static void remote_disconnect(cache_remote_tier *r) {
  if (r->ctx) redisFree(r->ctx);
  r->ctx = NULL;
}
#else
static int redis_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) { return -2; }
static void redis_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                      const void *data, size_t n) {}
static void remote_disconnect(cache_remote_tier *r) {}
#endif

/* The server's bytes for the file, at most the header and max payload bytes, into
** m->bytes: 0; -1 when the server has none (or one too long); -2 when it was not
** asked (a file digest, the tier off, a fault now).  The caller validates them. */
GPUBLOB_PRIVATE int cache_remote_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  cache_remote_tier *r = c->remote;
  if (!r || kind == 'd') return -2;
  return r->http ? remote_http_get(c, k, kind, m) : redis_get(c, k, kind, m);
}

/* The file (head, then payload) stored on the server, unless the tier is read-only,
** off, or the payload over its limit.  A fault is a warning, as everywhere. */
GPUBLOB_PRIVATE void cache_remote_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                                      const void *data, size_t n) {
  cache_remote_tier *r = c->remote;
  if (!r || kind == 'd' || r->read_only || n > r->max) return;
  if (r->http) remote_http_put(c, k, kind, head, hn, data, n);
  else redis_put(c, k, kind, head, hn, data, n);
}

static void remote_free(cache_remote_tier *r) {
  strbuf *const bufs[] = {&r->shown, &r->host, &r->path, &r->user, &r->password};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) {
    if (bufs[i] == &r->password && r->password.s) memset(r->password.s, 0, r->password.cap);
    sb_free(bufs[i]);
  }
  free(r);
}

/* The call's end: the connection closed. */
GPUBLOB_PRIVATE void cache_remote_close(digest_cache *c) {
  cache_remote_tier *r = c->remote;
  if (!r) return;
  if (r->http) remote_http_close(r);
  remote_disconnect(r);
  pthread_mutex_destroy(&r->mu);
  remote_free(r);
  c->remote = NULL;
}
