/* src/magic.c: What a blob of its kind starts with (the spec's bin_magic, pack_magic): a tool
** that wrote something else failed. */

/* ---- what a blob of its kind starts with (the spec's bin_magic, pack_magic) ---- */
static void hex_bytes(const char *hex, strbuf *out) {
  for (; hex[0] && hex[1]; hex += 2) {
    char byte[3] = {hex[0], hex[1], 0};
    char c = (char)strtoul(byte, NULL, 16);
    sb_addn(out, &c, 1);
  }
}

/* 0 when b starts with the magic; else an error naming who made it. */
static int check_magic(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code) {
  strbuf want = {0};
  hex_bytes(magic, &want);
  size_t n = want.len;
  int ok = !n || (b->size >= n && !memcmp(b->data, want.s, n));
  int oom = want.oom;
  sb_free(&want);
  if (oom) return set_error(j->g, GPUBLOB_NOMEM, "out of memory");
  if (ok) return GPUBLOB_OK;
  strbuf got = {0};
  for (size_t i = 0; i < n && i < b->size; i++) sb_addf(&got, "%02x", b->data[i]);
  set_error(j->g, code, "%s for %s:%s gave %zu bytes that do not start as a %s blob does (%s; they start "
            "with %s)", maker, j->t->name, j->chip, b->size, j->t->suffix_bin, magic,
            got.len ? sb_str(&got) : "nothing");
  sb_free(&got);
  return code;
}

/* A bin blob from the tool, the provider or (tool_kind none) LLVM itself. */
static int check_blob(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  if (!needs_blob_tool(j)) return check_magic(j, &j->out, j->t->bin_magic, "LLVM's backend", GPUBLOB_BACKEND);
  return check_magic(j, &j->out, j->t->bin_magic, *j->tool_name ? j->tool_name : "the blob tool", GPUBLOB_TOOL);
}
