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

/* 0 when b starts with the magic; else an error naming who made it, for what (chips:
** the job's chip, or a pack's members), and what it should have been (kind: the
** blob's suffix, or the pack's). */
static int check_magic_of(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code,
                          const char *chips, const char *kind) {
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
  set_error(j->g, code, "%s for %s:%s gave %zu bytes that do not start as a %s does (%s; they start "
            "with %s)", maker, j->t->name, chips, b->size, kind, magic, got.len ? sb_str(&got) : "nothing");
  sb_free(&got);
  return code;
}

static int check_magic(job *j, const gpublob_blob *b, const char *magic, const char *maker, int code) {
  strbuf kind = {0};
  sb_addf(&kind, "%s blob", j->t->suffix_bin);
  int rc = kind.oom ? set_error(j->g, GPUBLOB_NOMEM, "out of memory")
                    : check_magic_of(j, b, magic, maker, code, j->chip, sb_str(&kind));
  sb_free(&kind);
  return rc;
}

/* A pack's: the error names its members, each chip, and the pack's suffix. */
static int check_pack_magic(job *const *members, size_t n, const gpublob_blob *b, const char *maker) {
  job *first = members[0];
  strbuf chips = {0}, kind = {0};
  for (size_t i = 0; i < n; i++) sb_addf(&chips, "%s%s", i ? "," : "", members[i]->chip);
  sb_addf(&kind, "%s pack of %zu member%s", first->t->suffix_pack, n, n == 1 ? "" : "s");
  int rc = chips.oom || kind.oom ? set_error(first->g, GPUBLOB_NOMEM, "out of memory")
           : check_magic_of(first, b, first->t->pack_magic, maker, GPUBLOB_TOOL, sb_str(&chips), sb_str(&kind));
  sb_free(&chips);
  sb_free(&kind);
  return rc;
}

/* A bin blob from the tool, the provider or (tool_kind none) LLVM itself. */
static int check_blob(job *j) {
  if (j->format != GPUBLOB_FORMAT_BIN) return GPUBLOB_OK;
  if (!needs_blob_tool(j)) return check_magic(j, &j->out, j->t->bin_magic, "LLVM's backend", GPUBLOB_BACKEND);
  return check_magic(j, &j->out, j->t->bin_magic, *j->tool_name ? j->tool_name : "the blob tool", GPUBLOB_TOOL);
}
