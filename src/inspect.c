/* src/inspect.c: gpublob_inspect's reader (inspect_): one blob file of any kind gpublob
** writes or reads, as an output per entry it holds, so that the kernel calls read each
** (gpublob_kernel_count, gpublob_kernel_get).  What a file is, the spec says, never a
** vendor's name here: a pack by its target's pack_magic (its members by the pack's
** reader, src/meta_pack.c: a bin blob or the assembly each, under its chip), a bin blob
** by bin_magic and bin_machine (its chip and tool as the blob names them,
** src/meta_blob.c; its kernels read once, so a malformed blob is its reader's TOOL
** here), assembly text by asm_chip (".target sm_90"), and MLIR text by its
** #gpu.objects, each under the spec target whose mlir_target its target attribute
** names: a text scan, no MLIR library, so the LLVM-free front has it too; LLVM's
** OffloadBinary by its magic, each entry by src/offload.c's reader under the spec
** target its triple and image kind name (a bin blob as above, or its assembly).  Every file
** is hostile: each offset and length is checked against the bytes, and a kind none of
** these knows is FORMAT. */

/* ---- the result: an output per entry ---- */
enum { INSPECT_MAX_OBJECTS = 4096, INSPECT_NAME = 256 };

typedef struct inspect_run {
  gpublob *g;
  gpublob_result *r;
} inspect_run;

/* A name the file gives (a chip, a tool, an arch, a bundle id), into out: a control
** byte is '?', so that printing one moves no terminal. */
static void shown_name(const char *name, char out[INSPECT_NAME]) {
  size_t i = 0;
  for (; name[i] && i + 1 < INSPECT_NAME; i++)
    out[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
  out[i] = 0;
}

/* An output of n bytes at p (copied, NUL after them), its target (NULL: none), chip,
** tool and suffix (static storage). */
static int add_output(inspect_run *s, const target_desc *t, const char *chip_given, const char *tool_given,
                      const char *suffix, const unsigned char *p, size_t n) {
  if (s->r->count >= INSPECT_MAX_OBJECTS)
    return handle_set_error(s->g, GPUBLOB_TOOL, "more than %d entries in one file", INSPECT_MAX_OBJECTS);
  char chip[INSPECT_NAME], tool[INSPECT_NAME];
  shown_name(chip_given, chip);
  shown_name(tool_given, tool);
  gpublob_blob b = {malloc(n + 1), n, suffix};
  if (b.data) {
    if (n) memcpy(b.data, p, n);
    b.data[n] = 0;
  }
  if (!b.data || cache_lookup_result_add(s->r, t ? t->name : "", chip, tool, NULL, 0, &b)) {
    free(b.data);
    return handle_set_error(s->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  }
  return GPUBLOB_OK;
}

/* ---- what the bytes are, by the spec's magic ---- */
/* p starts with the bytes of hex (the spec's magic); an empty hex matches nothing. */
static int starts_hex(const unsigned char *p, size_t n, const char *hex) {
  size_t i = 0;
  for (; hex[0] && hex[1]; hex += 2, i++) {
    char byte[3] = {hex[0], hex[1], 0};
    if (i >= n || p[i] != (unsigned char)strtoul(byte, NULL, 16)) return 0;
  }
  return i > 0;
}

/* The first spec target whose packs start as p does; NULL when none. */
static const target_desc *pack_target(const unsigned char *p, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (starts_hex(p, n, target_at(i)->pack_magic)) return target_at(i);
  return NULL;
}

/* Whether p starts as target t's bin blobs do, of its ELF machine where the spec
** names one (SPIR-V's magic is spirv's, xevm's and spirv_env's alike). */
static int is_bin_of(const target_desc *t, const unsigned char *p, size_t n) {
  return starts_hex(p, n, t->bin_magic) &&
         (!t->bin_machine || (n >= 0x14 && elf_le_n(p + 0x12, 2) == (uint64_t)t->bin_machine));
}

/* The first spec target whose bin blobs p is one of; NULL when none. */
static const target_desc *bin_target(const unsigned char *p, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (is_bin_of(target_at(i), p, n)) return target_at(i);
  return NULL;
}

/* ---- bin blobs and packs ---- */
/* A bin blob of target t: its chip (chip_hint where the file around it names one) and
** tool as it names them, its kernels read once (a malformed blob is TOOL). */
static int add_bin(inspect_run *s, const target_desc *t, const unsigned char *p, size_t n, const char *chip_hint) {
  char chip[INSPECT_NAME], tool[INSPECT_NAME];
  if (meta_blob_identify(s->g, t, p, n, chip, sizeof chip, tool, sizeof tool)) return s->g->code;
  if (chip_hint && *chip_hint) snprintf(chip, sizeof chip, "%s", chip_hint);
  if (t->metadata != METADATA_none) {
    ktable kt = {0};
    int rc = meta_blob_read_kernels(s->g, t, p, n, chip, &kt);
    kt_free(&kt);
    if (rc) return rc;
  }
  return add_output(s, t, chip, tool, t->suffix_bin, p, n);
}

/* The pack's target, for its visitor. */
typedef struct pack_walk {
  inspect_run *s;
  const target_desc *t;
} pack_walk;

/* A member of a pack: a bin blob, or the assembly (up to its first NUL: fatbinary pads
** it).  A compressed cubin is TOOL, as the kernel reader says; compressed assembly
** holds no kernels, and is a warning. */
static int add_member(gpublob *g, void *ctx, const meta_pack_entry *e) {
  pack_walk *pr = ctx;
  if (e->compressed && e->bin)
    return handle_set_error(g, GPUBLOB_TOOL, "fatbin: the %s cubin is compressed (flags 0x%llx); not read", e->chip,
                            e->flags);
  if (e->compressed) {
    handle_add_warning(g, "the %s %s entry is compressed (flags 0x%llx); not read", e->chip, pr->t->suffix_asm,
                       e->flags);
    return GPUBLOB_OK;
  }
  if (e->bin) {
    if (!is_bin_of(pr->t, e->p, e->n))
      return handle_set_error(g, GPUBLOB_TOOL, "the pack's %s entry is no %s blob", e->chip, pr->t->suffix_bin);
    return add_bin(pr->s, pr->t, e->p, e->n, e->chip);
  }
  const unsigned char *z = memchr(e->p, 0, e->n);
  return add_output(pr->s, pr->t, e->chip, "", pr->t->suffix_asm, e->p, z ? (size_t)(z - e->p) : e->n);
}

/* A pack of target t: its members by its reader; a pack gpublob reads no members of
** is one output. */
static int add_pack(inspect_run *s, const target_desc *t, const unsigned char *p, size_t n, const char *chips) {
  pack_walk pr = {s, t};
  if (t->pack_metadata == PACK_METADATA_offload_bundle) return meta_pack_bundle_each(s->g, p, n, add_member, &pr);
  if (t->pack_metadata == PACK_METADATA_fatbin) return meta_pack_fatbin_each(s->g, t, p, n, chips, add_member, &pr);
  return add_output(s, t, chips, "", t->suffix_pack, p, n);
}

/* ---- LLVM's OffloadBinary: each entry by the container's reader (src/offload.c) ---- */
/* An entry: its target's bin blob (the entry's arch its chip, the blob's where it
** names none; an arch that is not the blob's own processor is TOOL), its assembly, or, of no spec target (another producer's kind, a triple
** no target has), its bytes under the target its triple names, if any, and LLVM's
** name of its kind.  A bin entry that is no blob of its target is TOOL. */
static int add_offload_entry(gpublob *g, void *ctx, const offload_item *e) {
  inspect_run *s = ctx;
  if (strlen(e->arch) >= INSPECT_NAME)
    return handle_set_error(g, GPUBLOB_TOOL, "offload binary at byte %llu: its arch is too long",
                            (unsigned long long)e->at);
  if (e->t && e->assembly) return add_output(s, e->t, e->arch, "", e->t->suffix_asm, e->image, e->image_size);
  if (e->t && !is_bin_of(e->t, e->image, e->image_size))
    return handle_set_error(g, GPUBLOB_TOOL, "offload binary at byte %llu: its %s entry for %s is no %s blob",
                            (unsigned long long)e->at, e->triple, e->arch, e->t->suffix_bin);
  if (e->t) return offload_check_arch(g, e) ? g->code : add_bin(s, e->t, e->image, e->image_size, e->arch);
  const target_desc *by_triple = NULL;
  for (int i = 0; i < target_count() && !by_triple; i++)
    if (!strcmp(target_at(i)->triple, e->triple)) by_triple = target_at(i);
  return add_output(s, by_triple, e->arch, "", *e->kind_suffix ? e->kind_suffix : ".bin", e->image, e->image_size);
}

/* ---- assembly text: the line that names its chip (the spec's asm_chip) ---- */
/* The chip a line "DIRECTIVE CHIP[,...]" of the text names, for a target with
** asm_chip: 1 with it in chip; 0 when no line does (or the chip is not the target's). */
static int asm_chip_of(const target_desc *t, const unsigned char *p, size_t n, char *chip, size_t size) {
  size_t dn = strlen(t->asm_chip);
  for (size_t at = 0; dn && at < n;) {
    const unsigned char *nl = memchr(p + at, '\n', n - at);
    size_t end = nl ? (size_t)(nl - p) : n, i = at;
    while (i < end && (p[i] == ' ' || p[i] == '\t')) i++;
    if (end - i > dn && !memcmp(p + i, t->asm_chip, dn) && (p[i + dn] == ' ' || p[i + dn] == '\t')) {
      for (i += dn; i < end && (p[i] == ' ' || p[i] == '\t'); i++) {}
      size_t w = i;
      while (w < end && !strchr(" \t\r,", p[w])) w++;
      if (w > i && w - i < size && resolve_target_id_valid(t, (const char *)p + i, w - i)) {
        memcpy(chip, p + i, w - i);
        chip[w - i] = 0;
        return 1;
      }
    }
    at = end + 1;
  }
  return 0;
}

/* Assembly text of the first target whose asm_chip line it has: 1 when added (or
** failed: *rc), 0 when no target's. */
static int add_asm_text(inspect_run *s, const unsigned char *p, size_t n, int *rc) {
  char chip[INSPECT_NAME];
  if (memchr(p, 0, n)) return 0; /* text holds no NUL */
  for (int i = 0; i < target_count(); i++) {
    const target_desc *t = target_at(i);
    if (!*t->asm_chip || !asm_chip_of(t, p, n, chip, sizeof chip)) continue;
    *rc = add_output(s, t, chip, "", t->suffix_asm, p, n);
    return 1;
  }
  return 0;
}

/* ---- MLIR text: each #gpu.object of its gpu.binary ops ---- */
/* A cursor over the text; bad once a construct runs past its end. */
typedef struct mcur {
  const char *p, *end;
} mcur;

static void skip_blanks(mcur *c) {
  while (c->p < c->end && strchr(" \t\r\n", *c->p)) c->p++;
}

/* Past a string whose opening quote c is at; 0, or -1 when it is not closed. */
static int skip_string(mcur *c) {
  for (c->p++; c->p < c->end; c->p++) {
    if (*c->p == '\\') c->p++;
    else if (*c->p == '"') return c->p++, 0;
  }
  return -1;
}

/* Past what follows up to the first ',' or closing bracket at depth 0 (strings and
** nested brackets skipped; '->' is an arrow, not a bracket); -1 when the text ends first. */
static int skip_item(mcur *c) {
  int depth = 0;
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '"') {
      if (skip_string(c)) return -1;
      continue;
    }
    if (ch == '-' && c->p + 1 < c->end && c->p[1] == '>') {
      c->p += 2;
      continue;
    }
    if (depth == 0 && (ch == ',' || ch == '>' || ch == ']' || ch == '}' || ch == ')')) return 0;
    if (strchr("<([{", ch)) depth++;
    else if (strchr(">)]}", ch)) depth--;
    c->p++;
  }
  return -1;
}

/* A word [A-Za-z0-9_.] at the cursor, n bytes; 0 when none. */
static size_t word_len(const mcur *c) {
  size_t n = 0;
  while (c->p + n < c->end && (isalnum((unsigned char)c->p[n]) || c->p[n] == '_' || c->p[n] == '.')) n++;
  return n;
}

/* A string literal's bytes, MLIR's escapes undone (\\, \", \n, \t, \XX), into out. */
static int mlir_string(gpublob *g, mcur *c, strbuf *out) {
  const char *start = c->p;
  if (c->p >= c->end || *c->p != '"' || skip_string(c)) return handle_set_error(g, GPUBLOB_PARSE, "MLIR: a string is not closed");
  for (const char *q = start + 1; q < c->p - 1; q++) {
    char ch = *q;
    if (ch == '\\' && q + 1 < c->p - 1) {
      char e = *++q;
      if (isxdigit((unsigned char)e) && q + 1 < c->p - 1 && isxdigit((unsigned char)q[1])) {
        char hex[3] = {e, q[1], 0};
        ch = (char)strtoul(hex, NULL, 16);
        q++;
      } else ch = e == 'n' ? '\n' : e == 't' ? '\t' : e;
    }
    sb_addn(out, &ch, 1);
  }
  return out->oom ? handle_set_error(g, GPUBLOB_NOMEM, "out of memory") : GPUBLOB_OK;
}

/* The spec target whose mlir_target is the n bytes at name (nvvm.target); NULL: none. */
GPUBLOB_PRIVATE const target_desc *inspect_target_of_attr(const char *name, size_t n) {
  for (int i = 0; i < target_count(); i++)
    if (*target_at(i)->mlir_target && strlen(target_at(i)->mlir_target) == n && !memcmp(target_at(i)->mlir_target, name, n))
      return target_at(i);
  return NULL;
}

/* The target attribute of an object: the spec target its name is the mlir_target of,
** and the chip its "chip = ..." names (else the spec's mlir_chip, else its chip). */
static int object_target(gpublob *g, mcur *c, const target_desc **t, char *chip, size_t size) {
  skip_blanks(c);
  if (c->p >= c->end || *c->p != '#') return handle_set_error(g, GPUBLOB_PARSE, "MLIR: a #gpu.object without its target attribute");
  c->p++;
  size_t n = word_len(c);
  if (!(*t = inspect_target_of_attr(c->p, n)))
    return handle_set_error(g, GPUBLOB_FORMAT, "MLIR: a #gpu.object of #%.*s, which no spec target's mlir_target names",
                            (int)(n < 64 ? n : 64), c->p);
  snprintf(chip, size, "%s", *(*t)->mlir_chip ? (*t)->mlir_chip : (*t)->chip);
  c->p += n;
  if (c->p >= c->end || *c->p != '<') return GPUBLOB_OK;
  c->p++;
  for (;;) { /* KEY = VALUE, ... > */
    skip_blanks(c);
    size_t k = word_len(c);
    int is_chip = k == 4 && !memcmp(c->p, "chip", 4);
    c->p += k;
    skip_blanks(c);
    if (is_chip && c->p < c->end && *c->p == '=') {
      c->p++;
      skip_blanks(c);
      strbuf s = {0};
      if (mlir_string(g, c, &s)) return sb_free(&s), g->code;
      snprintf(chip, size, "%s", sb_str(&s));
      sb_free(&s);
    } else if (skip_item(c)) break;
    if (c->p < c->end && *c->p == ',') c->p++;
    else if (c->p < c->end && *c->p == '>') return c->p++, GPUBLOB_OK;
    else break;
  }
  return handle_set_error(g, GPUBLOB_PARSE, "MLIR: a #gpu.object's target attribute is not closed");
}

/* The targets and chips an MLIR text's target attributes name (#nvvm.target<chip =
** "sm_80", ...>, each spec target's mlir_target; no chip: its mlir_chip), each pair
** once, at most max, into out: how many.  Read as object_target reads a #gpu.object's,
** anywhere in the text: a guess (one in a comment counts too), with which a remote
** lookup digests an MLIR call's tools while libcurl loads (cache_lookup_foresee). */
GPUBLOB_PRIVATE size_t inspect_mlir_targets(const char *text, size_t size, inspect_target *out, size_t max) {
  enum { TRIES = 64, SPAN = 4096 }; /* attributes read at most, and how far each (a guess) */
  gpublob sink = {0};
  size_t n = 0, tries = 0;
  for (const char *p = text, *end = text + size;
       n < max && tries < TRIES && p < end && (p = memchr(p, '#', (size_t)(end - p))); p++) {
    mcur c = {p + 1, end - p > SPAN ? p + SPAN : end};
    inspect_target found;
    if (!inspect_target_of_attr(c.p, word_len(&c))) continue; /* #llvm..., #gpu.object, #loc: no message made */
    tries++;
    c.p = p;
    if (object_target(&sink, &c, &found.t, found.chip, sizeof found.chip)) continue;
    int seen = 0;
    for (size_t i = 0; i < n && !seen; i++) seen = out[i].t == found.t && !strcmp(out[i].chip, found.chip);
    if (!seen) out[n++] = found;
  }
  sb_free(&sink.msg);
  sb_free(&sink.warn);
  return n;
}

/* An object's blob, by its format's word: bin, fatbin (no word), assembly, offload. */
static int add_object_blob(inspect_run *s, const target_desc *t, const char *chip, const char *format, size_t fn,
                           const strbuf *blob) {
  const unsigned char *p = (const unsigned char *)sb_str(blob);
  if (util_word_is(format, fn, "bin")) {
    if (!is_bin_of(t, p, blob->len))
      return handle_set_error(s->g, GPUBLOB_TOOL, "MLIR: a #gpu.object's bin for %s:%s is no %s blob", t->name, chip,
                              t->suffix_bin);
    return add_bin(s, t, p, blob->len, chip);
  }
  if (!fn || util_word_is(format, fn, "fatbin")) {
    if (pack_target(p, blob->len) != t)
      return handle_set_error(s->g, GPUBLOB_TOOL, "MLIR: a #gpu.object's fatbin for %s:%s is no %s pack", t->name,
                              chip, t->suffix_pack);
    return add_pack(s, t, p, blob->len, chip);
  }
  if (util_word_is(format, fn, "assembly")) return add_output(s, t, chip, "", t->suffix_asm, p, blob->len);
  if (util_word_is(format, fn, "offload")) return add_output(s, t, chip, "", ".bc", p, blob->len);
  return handle_set_error(s->g, GPUBLOB_PARSE, "MLIR: a #gpu.object of format '%.*s'", (int)(fn < 32 ? fn : 32), format);
}

/* One #gpu.object<TARGET, [properties = ..., kernels = ...,] [FORMAT =] "BLOB">, the
** cursor just past its '<'. */
static int add_object(inspect_run *s, mcur *c) {
  const target_desc *t = NULL;
  char chip[INSPECT_NAME];
  if (object_target(s->g, c, &t, chip, sizeof chip)) return s->g->code;
  while (c->p < c->end && *c->p == ',') {
    c->p++;
    skip_blanks(c);
    mcur at = *c;
    size_t k = word_len(c);
    c->p += k;
    skip_blanks(c);
    if (c->p < c->end && *c->p == '=') {
      c->p++;
      skip_blanks(c);
    } else *c = at, k = 0; /* the blob alone: fatbin */
    if (c->p < c->end && *c->p == '"' && !(k && (util_word_is(at.p, k, "properties") || util_word_is(at.p, k, "kernels")))) {
      strbuf blob = {0};
      int rc = mlir_string(s->g, c, &blob);
      if (!rc) rc = add_object_blob(s, t, chip, at.p, k, &blob);
      sb_free(&blob);
      if (rc) return rc;
    } else if (skip_item(c)) break;
    skip_blanks(c);
  }
  if (c->p < c->end && *c->p == '>') return c->p++, GPUBLOB_OK;
  return handle_set_error(s->g, GPUBLOB_PARSE, "MLIR: a #gpu.object is not closed");
}

/* Each #gpu.object of MLIR text; FORMAT when it has none. */
static int add_mlir(inspect_run *s, const unsigned char *p, size_t n) {
  static const char object[] = "#gpu.object<";
  mcur c = {(const char *)p, (const char *)p + n};
  size_t found = 0;
  for (const char *o; (o = memmem(c.p, (size_t)(c.end - c.p), object, sizeof object - 1)); found++) {
    c.p = o + sizeof object - 1;
    if (add_object(s, &c)) return s->g->code;
  }
  if (!found) return handle_set_error(s->g, GPUBLOB_FORMAT, "MLIR text without a #gpu.object: no blob to inspect");
  return GPUBLOB_OK;
}

/* ---- a file of any kind ---- */
/* The entries of the n bytes at p (NUL at p[n]) into r: OK; FORMAT for a kind gpublob
** reads not; TOOL for a pack or blob its reader refuses; PARSE for MLIR text whose
** #gpu.object does not parse; NOMEM.  On failure r holds what was added (the caller
** frees it). */
GPUBLOB_PRIVATE int inspect_read(gpublob *g, const unsigned char *p, size_t n, gpublob_result *r) {
  inspect_run s = {g, r};
  const target_desc *t;
  int rc = GPUBLOB_OK;
  if (offload_is(p, n)) return offload_each(g, p, n, add_offload_entry, &s);
  if ((t = pack_target(p, n))) return add_pack(&s, t, p, n, "");
  if ((t = bin_target(p, n))) return add_bin(&s, t, p, n, NULL);
  if (input_looks_like_mlir_bytecode(p, n))
    return handle_set_error(g, GPUBLOB_FORMAT, "MLIR bytecode: inspect reads MLIR text (write it without "
                            "--emit-bytecode, or mlir-opt-22 it to text)");
  if (input_looks_like_bitcode(p, n))
    return handle_set_error(g, GPUBLOB_FORMAT, "LLVM bitcode: an input, not a blob (compile it)");
  int mlir = !memchr(p, 0, n) && input_kind_of(GPUBLOB_INPUT_AUTO, p, n, NULL, NULL) == GPUBLOB_INPUT_MLIR;
  if (mlir && memmem(p, n, "#gpu.object<", 12)) return add_mlir(&s, p, n);
  if (add_asm_text(&s, p, n, &rc)) return rc; /* PTX's "//" comments read as MLIR's too */
  if (mlir) return add_mlir(&s, p, n);
  strbuf head = {0};
  for (size_t i = 0; i < n && i < 8; i++) sb_addf(&head, "%02x", p[i]);
  rc = handle_set_error(g, GPUBLOB_FORMAT, "not a blob gpublob reads: %zu bytes that start with %s, no spec target's "
                        "bin_magic, pack_magic or assembly (asm_chip), nor MLIR text with a #gpu.object",
                        n, head.len ? sb_str(&head) : "nothing");
  sb_free(&head);
  return rc;
}
