/* src/remote_http.c: The remote tier's HTTP backend: http:// and https:// servers that
** build farms already run, bazel-remote (and BuildBuddy, NativeLink, Buildbarn) or a
** WebDAV share (nginx, Apache), through libcurl.  The tier around it (src/cache_remote.c)
** is every backend's: behind the local cache, every value validated before it is served,
** read-only mode, a size limit, one fault a call.  Two layouts (the URL's ?layout=):
** bazel, the default, files each cache file under /cas/<its SHA-256> (bazel-remote checks
** the name) and a small record naming it under /ac/<SHA-256 of its gpublob key>; flat
** files it under PREFIX/v3/HEX.KIND.  libcurl (and libcrypto's SHA-256, which libcurl
** brings) is loaded by name when a call first uses the tier, so a call without it pays
** nothing for it and the programs need no libcurl to start; the build needs only
** curl/curl.h (configure, GPUBLOB_CURL).  The static front loads it too, into a libc of
** its own: its memory, threads and stdio stay libcurl's, gpublob hands it plain data and
** callbacks and copies the bytes out.  Credentials come from the environment or a netrc
** file, never a message: a bearer token ($GPUBLOB_REMOTE_TOKEN), the URL's user and
** password (or $GPUBLOB_REMOTE_PASSWORD); TLS verifies the server, with the options' CA
** file ($GPUBLOB_REMOTE_CA, --remote-ca) where given. */

#ifndef GPUBLOB_CURL
#define GPUBLOB_CURL 0
#endif
#ifndef GPUBLOB_STATIC_FRONT
#define GPUBLOB_STATIC_FRONT 0
#endif

/* http:// or https://: this backend's. */
static int http_wants(const char *url) {
  return !strncmp(url, "http://", 7) || !strncmp(url, "https://", 8);
}

#if GPUBLOB_CURL
#include <curl/curl.h>

enum { HTTP_AC_RECORD_MAX = 256 }; /* an /ac/ record is one short line */
enum { HTTP_PUT_ANSWER_MAX = 64 << 10 }; /* a PUT's answer page read (and dropped) before the transfer stops */

typedef struct remote_http {
  strbuf base;            /* scheme://HOST[:PORT][/PREFIX], no credentials, no '/' at the end */
  strbuf user, password;  /* the URL's, or $GPUBLOB_REMOTE_PASSWORD */
  strbuf bearer;          /* "Authorization: Bearer TOKEN" ($GPUBLOB_REMOTE_TOKEN), or "" */
  strbuf ca;              /* a CA bundle file, or "" */
  int flat;               /* the layout: 0 bazel (/ac/, /cas/), 1 flat (PREFIX/v3/HEX.KIND) */
  CURL *curl;             /* made when first needed; its connection is kept for the call */
  struct curl_slist *headers;
  strbuf body;            /* a GET's response bytes */
  unsigned long long limit; /* a body longer than this is not taken (a miss) */
  unsigned long long answered; /* the response's bytes so far */
  int dropping;           /* a PUT's: its response's bytes are dropped, its status decides */
  int too_long;
  char error[CURL_ERROR_SIZE];
  pthread_t warm;         /* loading the library meanwhile (http_warm), until joined */
  int warming;
} remote_http;

/* ---- libcurl and libcrypto, loaded by name at the first use ---- */
/* Each entry point: its name, the library it is in, its type. */
#define HTTP_SYMBOLS(X)                                                                                  \
  X(global_init, curl, CURLcode (*)(long))                                                               \
  X(easy_init, curl, CURL *(*)(void))                                                                    \
  X(easy_setopt, curl, CURLcode (*)(CURL *, CURLoption, ...))                                           \
  X(easy_perform, curl, CURLcode (*)(CURL *))                                                           \
  X(easy_getinfo, curl, CURLcode (*)(CURL *, CURLINFO, ...))                                            \
  X(easy_cleanup, curl, void (*)(CURL *))                                                                \
  X(easy_strerror, curl, const char *(*)(CURLcode))                                                      \
  X(slist_append, curl, struct curl_slist *(*)(struct curl_slist *, const char *))                       \
  X(slist_free_all, curl, void (*)(struct curl_slist *))
static struct {
#define HTTP_FIELD(name, lib, type) __typeof__(type) name;
  HTTP_SYMBOLS(HTTP_FIELD)
#undef HTTP_FIELD
  unsigned char *(*sha256)(const unsigned char *, size_t, unsigned char *); /* libcrypto's SHA256 */
  int ok;
  char why[256]; /* why it did not load */
} http_lib;
static pthread_once_t http_lib_once = PTHREAD_ONCE_INIT;

static void *http_dlopen(const char *name) { return dlopen(name, RTLD_NOW | RTLD_LOCAL); }

static void http_lib_load(void) {
  void *curl = http_dlopen("libcurl.so.4");
  if (!curl) {
    snprintf(http_lib.why, sizeof http_lib.why, "cannot load libcurl.so.4: %s (apt-get install libcurl4)", dlerror());
    return;
  }
#define HTTP_LOAD(name, lib, type)                                                                       \
  if (!(*(void **)&http_lib.name = dlsym(lib, "curl_" #name))) {                                         \
    snprintf(http_lib.why, sizeof http_lib.why, "libcurl.so.4 has no curl_" #name);                      \
    return;                                                                                              \
  }
  HTTP_SYMBOLS(HTTP_LOAD)
#undef HTTP_LOAD
  void *crypto = http_dlopen("libcrypto.so.3");
  if (crypto) *(void **)&http_lib.sha256 = dlsym(crypto, "SHA256");
  if (http_lib.global_init(CURL_GLOBAL_DEFAULT)) {
    snprintf(http_lib.why, sizeof http_lib.why, "curl_global_init failed");
    return;
  }
  http_lib.ok = 1;
}

static void *http_warm_main(void *arg) {
  (void)arg;
  pthread_once(&http_lib_once, http_lib_load);
  return NULL;
}

static void http_warm_join(remote_http *h) {
  if (h->warming) pthread_join(h->warm, NULL);
  h->warming = 0;
}

/* The library loaded on a thread of its own, started where a call is about to use the
** tier (a local miss): the few milliseconds of mapping libcurl's libraries overlap
** the caller's work meanwhile (a lookup digests its tools).  1 when started; the first
** request waits for it.  Not in the static front, which loads nothing. */
static int http_warm(cache_remote_tier *r) {
  remote_http *h = r->backend;
  if (GPUBLOB_STATIC_FRONT || r->dead || r->not_here || h->curl || h->warming) return 0;
  h->warming = !pthread_create(&h->warm, NULL, http_warm_main, NULL);
  return h->warming;
}

/* ---- the URL: http[s]://[USER[:PASSWORD]@]HOST[:PORT][/PREFIX][?layout=bazel|flat] ---- */
/* The credentials end at the URL's last '@' (cache_remote_credentials_end: a password
** may hold '@', '/', '?' and '#'; a prefix's '@' is written %40), the host starts after
** it: the host, the prefix and the layout are only ever read from what messages show. */
static int http_parse(remote_http *h, const char *url) {
  const char *auth = strstr(url, "//") + 2, *at = cache_remote_credentials_end(url);
  if (at) {
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    sb_addn(&h->user, auth, (size_t)((colon ? colon : at) - auth));
    if (colon) sb_addn(&h->password, colon + 1, (size_t)(at - colon - 1));
  }
  const char *hostport = at ? at + 1 : auth;
  const char *path = hostport + strcspn(hostport, "/?#");
  if (*path == '#' || hostport == path) return -1; /* a fragment, or no host */
  const char *query = strchr(path, '?');
  size_t prefix = query ? (size_t)(query - path) : strlen(path);
  while (prefix && path[prefix - 1] == '/') prefix--;
  if (memchr(path, '#', prefix)) return -1;
  sb_addn(&h->base, url, (size_t)(auth - url));
  sb_addn(&h->base, hostport, (size_t)(path - hostport));
  sb_addn(&h->base, path, prefix);
  if (query && strcmp(query, "?layout=bazel") && strcmp(query, "?layout=flat")) return -1;
  h->flat = query && !strcmp(query, "?layout=flat");
  return h->base.oom || h->user.oom || h->password.oom ? -1 : 0;
}

/* The URL for messages: the base (no credentials: http_parse reads it after them),
** "***@" where credentials were, and the layout. */
static void http_shown(strbuf *shown, const remote_http *h, const char *url) {
  size_t scheme = (size_t)(strstr(url, "//") + 2 - url);
  sb_reset(shown);
  sb_addn(shown, sb_str(&h->base), scheme);
  if (cache_remote_credentials_end(url)) sb_add(shown, "***@");
  sb_add(shown, sb_str(&h->base) + scheme);
  if (h->flat) sb_add(shown, "?layout=flat");
}

static void http_free(remote_http *h) {
  http_warm_join(h);
  if (h->curl) http_lib.easy_cleanup(h->curl);
  if (h->headers) http_lib.slist_free_all(h->headers);
  strbuf *const secrets[] = {&h->password, &h->bearer};
  for (size_t i = 0; i < sizeof secrets / sizeof *secrets; i++)
    if (secrets[i]->s) memset(secrets[i]->s, 0, secrets[i]->cap);
  strbuf *const bufs[] = {&h->base, &h->user, &h->password, &h->bearer, &h->ca, &h->body};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) sb_free(bufs[i]);
  free(h);
}

/* The tier's HTTP state from its URL and the environment: 0, or -1 with one warning. */
static int http_open(digest_cache *c, cache_remote_tier *r, const gpublob_options *o) {
  remote_http *h = calloc(1, sizeof *h);
  if (!h || http_parse(h, o->remote_cache)) {
    handle_add_warning(c->g, "remote cache %s: not an http[s]://[USER[:PASSWORD]@]HOST[:PORT][/PREFIX]"
                       "[?layout=bazel|flat] URL; not used", sb_str(&r->shown));
    c->g->stats.remote_errors = 1;
    if (h) http_free(h);
    return -1;
  }
  const char *password = getenv("GPUBLOB_REMOTE_PASSWORD"), *token = getenv("GPUBLOB_REMOTE_TOKEN");
  const char *ca = o->remote_ca && *o->remote_ca ? o->remote_ca : getenv("GPUBLOB_REMOTE_CA");
  if (h->user.len && !h->password.len && password && *password) sb_add(&h->password, password);
  if (token && *token) sb_addf(&h->bearer, "Authorization: Bearer %s", token);
  if (ca && *ca) sb_add(&h->ca, ca);
  http_shown(&r->shown, h, o->remote_cache);
  r->backend = h;
  return 0;
}

/* libcurl's bytes up to the limit; past it the transfer stops (a GET's miss).  A GET's
** are kept; a PUT's answer (Apache's mod_dav sends a page with its 201) is dropped. */
static size_t http_take(char *bytes, size_t size, size_t count, void *arg) {
  remote_http *h = arg;
  size_t n = size * count;
  if (h->answered + n > h->limit) {
    h->too_long = 1;
    return 0;
  }
  h->answered += n;
  if (!h->dropping) sb_addn(&h->body, bytes, n);
  return h->body.oom ? 0 : n;
}

/* The handle, made at the first request: the library loaded, the settings that hold for
** every request (timeouts, credentials, TLS, no signals, no redirects).  0, or -1 and
** the fault. */
static int http_ready(digest_cache *c, remote_http *h) {
  cache_remote_tier *r = c->remote;
  http_warm_join(h); /* first: no thread of its own outlives the first request */
  if (r->dead || r->not_here) return -1;
  if (h->curl) return 0;
#if GPUBLOB_STATIC_FRONT
  /* A static program loads no library (libcurl would bring a second libc): the CLI's
  ** static front hands a call with this tier to its dynamic twin, gpublob-front
  ** (programs/front.c); a lookup that still comes here leaves the tier to the
  ** compiler, which asks the server on the local miss.  No fault is recorded. */
  r->not_here = 1;
  return -1;
#endif
  pthread_once(&http_lib_once, http_lib_load);
  if (!http_lib.ok) return cache_remote_fault(c, "cannot use libcurl", http_lib.why), -1;
  if (!h->flat && !http_lib.sha256)
    return cache_remote_fault(c, "the bazel layout needs libcrypto.so.3's SHA256", "not found"), -1;
  if (!(h->curl = http_lib.easy_init())) return cache_remote_fault(c, "cannot start libcurl", "curl_easy_init"), -1;
  const char *fixed[] = {"Expect:", "Content-Type:", h->bearer.len ? sb_str(&h->bearer) : NULL};
  for (size_t i = 0; i < sizeof fixed / sizeof *fixed && fixed[i]; i++) h->headers = http_lib.slist_append(h->headers, fixed[i]);
  CURL *e = h->curl;
  http_lib.easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  http_lib.easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)r->timeout_ms);
  http_lib.easy_setopt(e, CURLOPT_TIMEOUT_MS, (long)r->timeout_ms);
  http_lib.easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  http_lib.easy_setopt(e, CURLOPT_NETRC, (long)CURL_NETRC_OPTIONAL);
  http_lib.easy_setopt(e, CURLOPT_HTTPHEADER, h->headers);
  http_lib.easy_setopt(e, CURLOPT_ERRORBUFFER, h->error);
  http_lib.easy_setopt(e, CURLOPT_WRITEFUNCTION, http_take);
  http_lib.easy_setopt(e, CURLOPT_WRITEDATA, h);
  if (h->user.len) http_lib.easy_setopt(e, CURLOPT_USERNAME, sb_str(&h->user));
  if (h->password.len) http_lib.easy_setopt(e, CURLOPT_PASSWORD, sb_str(&h->password));
  if (h->ca.len) http_lib.easy_setopt(e, CURLOPT_CAINFO, sb_str(&h->ca));
  return 0;
}

enum { HTTP_FAULT = -1, HTTP_TOO_LONG = -2 };

/* One request of base + path: a GET (body NULL; its bytes into h->body, at most limit)
** or a PUT of body (its answer's bytes dropped: its status decides, whatever page comes
** with it; past HTTP_PUT_ANSWER_MAX the transfer stops, the status known).  The HTTP
** status; HTTP_TOO_LONG when a GET's answer was over the limit (a miss); HTTP_FAULT
** after a fault (the tier is off). */
static long http_request(digest_cache *c, const char *path, const void *body, size_t n, unsigned long long limit) {
  remote_http *h = c->remote->backend;
  if (http_ready(c, h)) return HTTP_FAULT;
  CURL *e = h->curl;
  strbuf url = {0};
  sb_addf(&url, "%s%s", sb_str(&h->base), path);
  sb_reset(&h->body);
  h->limit = body ? HTTP_PUT_ANSWER_MAX : limit;
  h->answered = 0;
  h->dropping = body != NULL;
  h->too_long = 0;
  h->error[0] = 0;
  http_lib.easy_setopt(e, CURLOPT_URL, sb_str(&url));
  if (body) {
    http_lib.easy_setopt(e, CURLOPT_CUSTOMREQUEST, "PUT");
    http_lib.easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)n);
    http_lib.easy_setopt(e, CURLOPT_POSTFIELDS, body);
    http_lib.easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)0);
  } else {
    http_lib.easy_setopt(e, CURLOPT_CUSTOMREQUEST, (char *)NULL);
    http_lib.easy_setopt(e, CURLOPT_HTTPGET, 1L);
    http_lib.easy_setopt(e, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)limit); /* a longer Content-Length: not fetched */
  }
  CURLcode rc = url.oom ? CURLE_OUT_OF_MEMORY : http_lib.easy_perform(e);
  sb_free(&url);
  long status = 0;
  if (rc == CURLE_WRITE_ERROR && h->too_long && body) rc = CURLE_OK; /* a long page after the status: not wanted */
  if (rc == CURLE_FILESIZE_EXCEEDED || (rc == CURLE_WRITE_ERROR && h->too_long)) return HTTP_TOO_LONG;
  if (rc == CURLE_OK) http_lib.easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
  if (rc != CURLE_OK) {
    char detail[CURL_ERROR_SIZE + 64];
    snprintf(detail, sizeof detail, "%s", h->error[0] ? h->error : http_lib.easy_strerror(rc));
    cache_remote_fault(c, body ? "PUT failed" : "GET failed", detail);
    return HTTP_FAULT;
  }
  c->g->stats.remote_bytes_read += h->body.len;
  return status;
}

/* A GET's answer: 0 with the bytes in h->body (200), -1 for none (404, or too long),
** -2 after a fault (another status is one: a refusal, a wrong password, a server error). */
static int http_get(digest_cache *c, const char *path, unsigned long long limit) {
  long status = http_request(c, path, NULL, 0, limit);
  if (status == 200) return 0;
  if (status == 404 || status == HTTP_TOO_LONG) return -1;
  if (status > 0) {
    char detail[32];
    snprintf(detail, sizeof detail, "HTTP %ld", status);
    cache_remote_fault(c, "GET failed", detail);
  }
  return -2;
}

/* A PUT: 0 when stored (2xx, whatever page comes with it), else -1 and the fault. */
static int http_put(digest_cache *c, const char *path, const void *body, size_t n) {
  long status = http_request(c, path, body, n, 0);
  if (status >= 200 && status < 300) return 0;
  if (status > 0) {
    char detail[32];
    snprintf(detail, sizeof detail, "HTTP %ld", status);
    cache_remote_fault(c, "PUT failed", detail);
  }
  return -1;
}

static void http_hex(const unsigned char *b, size_t n, char *out) {
  for (size_t i = 0; i < n; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* bazel: the /ac/ name of a cache file, the SHA-256 of its key as Redis names it
** ("gpublob:v3:KIND:HEX"), and the record that /ac/ holds for it: the key and the
** file's /cas/ name and length. */
static void http_ac_path(const digest_key128 *k, char kind, char path[80]) {
  char hex[33], key[48], name[65];
  unsigned char sum[32];
  cache_dir_key_hex(k, hex);
  snprintf(key, sizeof key, "gpublob:" CACHE_LAYOUT ":%c:%s", kind, hex);
  http_lib.sha256((const unsigned char *)key, strlen(key), sum);
  http_hex(sum, sizeof sum, name);
  snprintf(path, 80, "/ac/%s", name);
}

static void http_ac_record(const digest_key128 *k, char kind, const char cas[65], size_t len, char out[HTTP_AC_RECORD_MAX]) {
  char hex[33];
  cache_dir_key_hex(k, hex);
  snprintf(out, HTTP_AC_RECORD_MAX, "gpublob " CACHE_LAYOUT " %c %s %s %zu\n", kind, hex, cas, len);
}

/* flat: PREFIX/v3/HEX.KIND. */
static void http_flat_path(const digest_key128 *k, char kind, char path[48]) {
  char hex[33];
  cache_dir_key_hex(k, hex);
  snprintf(path, 48, "/" CACHE_LAYOUT "/%s.%c", hex, kind);
}

/* bazel: the record under /ac/, exactly this key's (a foreign, cut or garbled one is
** a miss), then its /cas/ value, whose length and SHA-256 must be the record's.
** 0 with the bytes in h->body; -1 a miss; -2 a fault. */
static int http_get_bazel(digest_cache *c, const digest_key128 *k, char kind, unsigned long long limit) {
  remote_http *h = c->remote->backend;
  char path[80], cas[65], want[HTTP_AC_RECORD_MAX];
  if (http_ready(c, h)) return -2;
  http_ac_path(k, kind, path);
  int rc = http_get(c, path, HTTP_AC_RECORD_MAX - 1);
  if (rc) return rc;
  char kind_got, hex_got[33];
  unsigned long long len = 0;
  const char *rec = sb_str(&h->body);
  if (strlen(rec) != h->body.len ||
      sscanf(rec, "gpublob " CACHE_LAYOUT " %c %32s %64s %llu", &kind_got, hex_got, cas, &len) != 4)
    return -1;
  http_ac_record(k, kind, cas, (size_t)len, want); /* the record this key's store writes, byte for byte */
  if (strcmp(want, rec) || len == 0 || len > limit || strspn(cas, "0123456789abcdef") != 64) return -1;
  snprintf(path, sizeof path, "/cas/%s", cas);
  if ((rc = http_get(c, path, len))) return rc;
  unsigned char sum[32];
  char got[65];
  http_lib.sha256((const unsigned char *)sb_str(&h->body), h->body.len, sum);
  http_hex(sum, sizeof sum, got);
  return h->body.len == len && !strcmp(got, cas) ? 0 : -1;
}

/* The server's bytes for the file, at most the header and max payload bytes, into
** m->bytes: 0; -1 when the server has none (or one that is not this key's); -2 when
** it was not asked (the tier off, a fault now).  The tier validates them. */
static int http_get_file(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) {
  cache_remote_tier *r = c->remote;
  remote_http *h = r->backend;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  unsigned long long limit = r->max + sizeof(digest_entry_header);
  int rc;
  if (h->flat) {
    char path[48];
    http_flat_path(k, kind, path);
    rc = http_get(c, path, limit);
  } else {
    rc = http_get_bazel(c, k, kind, limit);
  }
  if (!rc && !h->body.len) rc = -1;
  if (!rc && (m->bytes = malloc(h->body.len))) {
    memcpy(m->bytes, sb_str(&h->body), h->body.len);
    m->len = h->body.len;
  } else if (!rc) {
    rc = -1;
  }
  sb_reset(&h->body);
  c->g->stats.remote_ms += util_now_ms() - t;
  pthread_mutex_unlock(&r->mu);
  return rc;
}

/* The file (head, then payload) stored: flat, under its path; bazel, the value under
** /cas/ first, then its record under /ac/ (a reader never finds a record before its
** value).  A fault is the tier's one warning. */
static void http_put_file(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                          const void *data, size_t n) {
  cache_remote_tier *r = c->remote;
  remote_http *h = r->backend;
  pthread_mutex_lock(&r->mu);
  double t = util_now_ms();
  unsigned char *value = malloc(hn + n);
  if (value && !http_ready(c, h)) {
    memcpy(value, head, hn);
    memcpy(value + hn, data, n);
    char path[80], record[HTTP_AC_RECORD_MAX];
    int rc;
    if (h->flat) {
      http_flat_path(k, kind, path);
      rc = http_put(c, path, value, hn + n);
    } else {
      unsigned char sum[32];
      char cas[65];
      http_lib.sha256(value, hn + n, sum);
      http_hex(sum, sizeof sum, cas);
      snprintf(path, sizeof path, "/cas/%s", cas);
      rc = http_put(c, path, value, hn + n);
      http_ac_record(k, kind, cas, hn + n, record);
      http_ac_path(k, kind, path);
      if (!rc) rc = http_put(c, path, record, strlen(record));
      if (!rc) c->g->stats.remote_bytes_written += strlen(record);
    }
    if (!rc) {
      c->g->stats.remote_stores++;
      c->g->stats.remote_bytes_written += hn + n;
    }
  }
  free(value);
  c->g->stats.remote_ms += util_now_ms() - t;
  pthread_mutex_unlock(&r->mu);
}

static void http_close(cache_remote_tier *r) {
  http_free(r->backend);
  r->backend = NULL;
}
#else
/* Built without libcurl: a URL is one warning, and the call goes on without the tier. */
static int http_open(digest_cache *c, cache_remote_tier *r, const gpublob_options *o) {
  handle_add_warning(c->g, "remote cache %s: this gpublob was built without libcurl; not used", sb_str(&r->shown));
  c->g->stats.remote_errors = 1;
  return -1;
}
static int http_get_file(digest_cache *c, const digest_key128 *k, char kind, cache_dir_file *m) { return -2; }
static void http_put_file(digest_cache *c, const digest_key128 *k, char kind, const void *head, size_t hn,
                          const void *data, size_t n) {}
static void http_close(cache_remote_tier *r) {}
static int http_warm(cache_remote_tier *r) { return 0; }
#endif

GPUBLOB_PRIVATE const cache_remote_ops remote_http_ops = {http_wants, http_open, http_get_file, http_put_file,
                                                          NULL, http_close, http_warm};
