/* src/cache_remote.c: The remote tier behind the local cache: a server that many
** machines share, so a kernel compiled on one is a hit on all.  This part is the tier:
** the URL's scheme picks a backend from a table of their operations (open, get, put,
** close: src/remote_http.c for http:// and https://, src/remote_redis.c for the rest),
** and the tier keeps what every backend shares: its settings, its one fault a call.
** A server holds exactly the local cache's files (header and payload); the local
** cache is looked up first, a remote hit is validated as a local file is and copied
** into it (src/cache_dir.c), and a compile stores in both.  A remote value is anyone's
** bytes: it is fetched with a size bound, checked (length, kind, key, XXH3-128) and
** never served when it fails, and the compile's store overwrites it.  Faults never
** fail a call: a backend connects when first needed, within the timeout; the first
** fault (down, refusing, hung, a bad password) turns the tier off for the rest of the
** call with one warning, so it costs at most one timeout.  File digests ('d', a
** file's inode and times on this machine) stay local. */

/* ---- the remote tier: a server behind the local cache ---- */
enum { REMOTE_TIMEOUT_MS = 50 };
#define REMOTE_MAX_DEFAULT (64ULL << 20)

/* The backends, by the URL's scheme: the one that wants it.  A scheme none wants is
** the tier's one warning. */
static const cache_remote_ops *const remote_backends[] = {&remote_http_ops, &remote_redis_ops};

/* Where a URL's credentials end: its last '@' after "//" (a password may hold '@', '/',
** '?' and '#' itself, so the first '/' cannot end them), or NULL when it has none.
** Every backend's parser and the shown URL take this one rule: what a parser reads as
** the host is never a part of what messages hide. */
GPUBLOB_PRIVATE const char *cache_remote_credentials_end(const char *url) {
  const char *auth = strstr(url, "//");
  return auth ? strrchr(auth + 2, '@') : NULL;
}

/* The URL for messages: whatever is between "//" and the credentials' end (a user, a
** password) hidden. */
static void remote_shown(strbuf *b, const char *url) {
  const char *at = cache_remote_credentials_end(url);
  if (at) sb_addf(b, "%.*s***%s", (int)(strstr(url, "//") + 2 - url), url, at);
  else sb_add(b, url);
}

static void remote_free(cache_remote_tier *r) {
  sb_free(&r->shown);
  free(r);
}

/* What every backend shares: its timeout, size limit, read-only mode, one lock. */
static void remote_settle(cache_remote_tier *r, const gpublob_options *o) {
  r->timeout_ms = o->remote_timeout_ms ? o->remote_timeout_ms : REMOTE_TIMEOUT_MS;
  r->max = o->remote_max ? o->remote_max : REMOTE_MAX_DEFAULT;
  if (r->max > (1ULL << 40)) r->max = 1ULL << 40; /* no cache file is a terabyte; max + a header never wraps */
  r->read_only = !!(o->flags & GPUBLOB_FLAG_REMOTE_READ_ONLY);
  pthread_mutex_init(&r->mu, NULL);
}

/* The tier of the options, if they name one: kept for the call, connected when first
** needed.  A URL of no backend's scheme is one warning here; a URL its backend does not
** understand, or a build without the backend's library, is one warning its open says. */
GPUBLOB_PRIVATE void cache_remote_open(digest_cache *c, const gpublob_options *o) {
  if (!o->remote_cache || !*o->remote_cache) return;
  cache_remote_tier *r = calloc(1, sizeof *r);
  if (!r) return;
  remote_shown(&r->shown, o->remote_cache);
  size_t i = 0, n = sizeof remote_backends / sizeof *remote_backends;
  while (i < n && !remote_backends[i]->wants(o->remote_cache)) i++;
  if (i == n) {
    handle_add_warning(c->g, "remote cache %s: not a redis://[[USER]:PASSWORD@]HOST[:PORT][/DB], unix:///PATH, "
                       "http://HOST[:PORT]/PREFIX or https:// URL; not used", sb_str(&r->shown));
    c->g->stats.remote_errors = 1;
    remote_free(r);
    return;
  }
  r->ops = remote_backends[i];
  remote_settle(r, o);
  if (r->ops->open(c, r, o)) {
    pthread_mutex_destroy(&r->mu);
    remote_free(r);
    return;
  }
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
  if (r->ops->off) r->ops->off(r);
}

/* The server's bytes for the file, at most the header and max payload bytes, into
** m->bytes: 0; -1 when the server has none (or one too long); -2 when it was not
** asked (a file digest, the tier off, a fault now).  The caller validates them. */
GPUBLOB_PRIVATE int cache_remote_get(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  cache_remote_tier *r = c->remote;
  if (!r || kind == 'd') return -2;
  return r->ops->get(c, k, kind, m);
}

/* The file (head, then payload) stored on the server, unless the tier is read-only,
** off, or the payload over its limit.  A fault is a warning, as everywhere. */
GPUBLOB_PRIVATE void cache_remote_put(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                                      const void *data, size_t n) {
  cache_remote_tier *r = c->remote;
  if (!r || kind == 'd' || r->read_only || n > r->max) return;
  r->ops->put(c, k, kind, head, hn, data, n);
}

/* Where a call is about to ask the tier (a local miss): a backend with slow
** preparation of its own starts it on a thread (src/remote_http.c loads libcurl), so
** that the caller's work meanwhile overlaps it.  1 when started. */
GPUBLOB_PRIVATE int cache_remote_warm(digest_cache *c) {
  cache_remote_tier *r = c->remote;
  return r && r->ops->warm ? r->ops->warm(r) : 0;
}

/* The call's end: the connection closed. */
GPUBLOB_PRIVATE void cache_remote_close(digest_cache *c) {
  cache_remote_tier *r = c->remote;
  if (!r) return;
  r->ops->close(r);
  pthread_mutex_destroy(&r->mu);
  remote_free(r);
  c->remote = NULL;
}
