/* src/meta_amdgpu.c: The amdgpu_note metadata reader: an AMD code object's kernels,
** from its NT_AMDGPU_METADATA note (owner "AMDGPU", type 32): a MessagePack map whose
** "amdhsa.kernels" is an array of maps, one per kernel, keyed as LLVM's
** AMDGPUHSAMetadataStreamer writes them (.name, .vgpr_count, .group_segment_fixed_size,
** ...; llvm-readelf --notes prints the same map).  A kernel's .args is an array of
** maps, one per argument in kernarg order, hidden ones included (.value_kind
** hidden_*): each gives a parameter its .offset, .size, .value_kind and, where
** present, .address_space and .name.  Unknown keys are skipped; a key of the wrong
** type, a truncated note, a note outside the blob or an argument outside the
** kernarg segment is TOOL. */

/* ---- AMDGPU metadata: the note, its kernels ---- */
enum { NT_AMDGPU_METADATA_ = 32 };

/* Where a kernel map's integer key goes; NULL for a key not kept. */
static long long *amd_field(gpublob_kernel_info *k, const char *s, size_t n) {
  static const struct { const char *key; size_t off; } keys[] = {
#define GPUBLOB_AMD_NOTE_KEY(key, field) {"." #key, offsetof(gpublob_kernel_info, field)},
      GPUBLOB_AMDGPU_KERNEL_KEYS(GPUBLOB_AMD_NOTE_KEY)
#undef GPUBLOB_AMD_NOTE_KEY
  };
  for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
    if (mp_is(s, n, keys[i].key)) return (long long *)((char *)k + keys[i].off);
  return NULL;
}

static int amd_bad(gpublob *g, const char *what) {
  return handle_set_error(g, GPUBLOB_TOOL, "AMDGPU metadata note: %s", what);
}

/* .reqd_workgroup_size: an array of three integers. */
static int amd_reqd(gpublob *g, mp_cur *c, gpublob_kernel_info *k) {
  size_t n;
  if (mp_array(c, &n) || n != 3) return amd_bad(g, ".reqd_workgroup_size is not an array of 3");
  for (int i = 0; i < 3; i++)
    if (mp_int(c, &k->reqd_threads[i]) || k->reqd_threads[i] < 0)
      return amd_bad(g, ".reqd_workgroup_size holds a value that is not a count");
  return GPUBLOB_OK;
}

/* A string of an argument's map into *s (the table's copy). */
static int amd_arg_str(gpublob *g, mp_cur *c, ktable *t, const char **s, const char *key) {
  const char *v;
  size_t n;
  if (mp_str(c, &v, &n)) return handle_set_error(g, GPUBLOB_TOOL, "AMDGPU metadata note: an argument's %s is not a string", key);
  *s = kt_copy(g, t, v, n);
  return *s ? GPUBLOB_OK : g->code;
}

/* An argument's .offset or .size into *v: a count. */
static int amd_arg_count(gpublob *g, mp_cur *c, long long *v, const char *key) {
  if (mp_int(c, v) || *v < 0) return handle_set_error(g, GPUBLOB_TOOL, "AMDGPU metadata note: an argument's %s is not a count", key);
  return GPUBLOB_OK;
}

/* One entry of .args: a parameter of the kernel numbered kernel, its kind .value_kind
** (hidden when it starts with "hidden_"). */
static int amd_arg(gpublob *g, mp_cur *c, ktable *t, size_t kernel) {
  size_t pairs;
  if (mp_map(c, &pairs)) return amd_bad(g, "an entry of .args is not a map");
  gpublob_param_info *a = kt_param_add(g, t, kernel, "", 0);
  if (!a) return g->code;
  int kind = 0;
  for (size_t i = 0; i < pairs; i++) {
    const char *key;
    size_t kn;
    int rc = GPUBLOB_OK;
    if (mp_str(c, &key, &kn)) return amd_bad(g, "an argument's key is not a string");
    if (mp_is(key, kn, ".offset")) rc = amd_arg_count(g, c, &a->offset, ".offset");
    else if (mp_is(key, kn, ".size")) rc = amd_arg_count(g, c, &a->size, ".size");
    else if (mp_is(key, kn, ".value_kind")) rc = amd_arg_str(g, c, t, &a->kind, ".value_kind"), kind = 1;
    else if (mp_is(key, kn, ".address_space")) rc = amd_arg_str(g, c, t, &a->address_space, ".address_space");
    else if (mp_is(key, kn, ".name")) rc = amd_arg_str(g, c, t, &a->name, ".name");
    else mp_skip(c, MSGPACK_MAX_DEPTH);
    if (rc) return rc;
    if (c->bad) return amd_bad(g, "an argument's map is cut short or malformed");
  }
  if (!kind) return amd_bad(g, "an argument without .value_kind");
  a->hidden = !strncmp(a->kind, "hidden_", 7);
  return GPUBLOB_OK;
}

/* .args: the parameters of the kernel numbered kernel, in order. */
static int amd_args(gpublob *g, mp_cur *c, ktable *t, size_t kernel) {
  size_t count;
  if (mp_array(c, &count)) return amd_bad(g, ".args is not an array");
  for (size_t i = 0; i < count; i++)
    if (amd_arg(g, c, t, kernel)) return g->code;
  return GPUBLOB_OK;
}

/* One kernel's map: its .name first found, then the figures kept, and its .args as
** the parameters of the table's next kernel. */
static int amd_kernel(gpublob *g, mp_cur *c, ktable *t, const char *chip) {
  size_t pairs;
  if (mp_map(c, &pairs)) return amd_bad(g, "an entry of amdhsa.kernels is not a map");
  gpublob_kernel_info tmp = {0};
  const char *name = NULL;
  size_t name_len = 0;
  gpublob_kernel_info *k = &tmp;
  *k = kt_blank(NULL, NULL);
  for (size_t i = 0; i < pairs; i++) {
    const char *key;
    size_t kn;
    long long *f;
    if (mp_str(c, &key, &kn)) return amd_bad(g, "a kernel's key is not a string");
    if (mp_is(key, kn, ".name")) {
      if (mp_str(c, &name, &name_len)) return amd_bad(g, ".name is not a string");
    } else if (mp_is(key, kn, ".args")) {
      if (amd_args(g, c, t, t->n)) return g->code;
    } else if (mp_is(key, kn, ".reqd_workgroup_size")) {
      if (amd_reqd(g, c, k)) return g->code;
    } else if ((f = amd_field(k, key, kn))) {
      if (mp_int(c, f) || *f < 0) return handle_set_error(g, GPUBLOB_TOOL, "AMDGPU metadata note: %.*s is not a count",
                                                   (int)(kn < 64 ? kn : 64), key);
    } else mp_skip(c, MSGPACK_MAX_DEPTH);
    if (c->bad) return amd_bad(g, "a kernel's map is cut short or malformed");
  }
  if (!name) return amd_bad(g, "a kernel without .name");
  if (kt_params_check(g, t, t->n, tmp.params_bytes, "AMDGPU metadata note: .args")) return g->code;
  gpublob_kernel_info *rec = kt_add(g, t, name, name_len, chip);
  if (!rec) return g->code;
  tmp.name = rec->name;
  tmp.chip = rec->chip;
  if (tmp.vgpr_spills >= 0 && tmp.sgpr_spills >= 0) tmp.spills = kt_count_add(tmp.vgpr_spills, tmp.sgpr_spills);
  *rec = tmp;
  return GPUBLOB_OK;
}

/* The note's map: amdhsa.kernels read, the rest skipped. */
static int amd_map(gpublob *g, const unsigned char *p, size_t n, ktable *t, const char *chip) {
  mp_cur c = {p, p + n, 0};
  size_t pairs, count;
  if (mp_map(&c, &pairs)) return amd_bad(g, "not a MessagePack map");
  for (size_t i = 0; i < pairs; i++) {
    const char *key;
    size_t kn;
    if (mp_str(&c, &key, &kn)) return amd_bad(g, "a key of the map is not a string");
    if (!mp_is(key, kn, "amdhsa.kernels")) {
      mp_skip(&c, MSGPACK_MAX_DEPTH);
      if (c.bad) return amd_bad(g, "cut short or malformed");
      continue;
    }
    if (mp_array(&c, &count)) return amd_bad(g, "amdhsa.kernels is not an array");
    for (size_t k = 0; k < count; k++)
      if (amd_kernel(g, &c, t, chip)) return g->code;
  }
  return GPUBLOB_OK;
}

/* The first NT_AMDGPU_METADATA note of a code object's note sections: its map's bytes
** in *desc; a code object without one is TOOL (LLVM writes one into each). */
static int amd_note(gpublob *g, const unsigned char *p, size_t n, const unsigned char **desc, size_t *size) {
  elf_view e;
  if (elf_open(g, &e, p, n, "code object")) return g->code;
  for (size_t i = 0; i < e.shnum; i++) {
    elf_section s = elf_sec(&e, i);
    const unsigned char *b = s.type == SHT_NOTE_ ? elf_bytes(&e, &s) : NULL;
    if (s.type == SHT_NOTE_ && !b) return amd_bad(g, "a note section lies outside the code object");
    for (uint64_t off = 0; b && off <= s.size && s.size - off >= 12;) {
      uint64_t namesz = elf_le_n(b + off, 4), descsz = elf_le_n(b + off + 4, 4), type = elf_le_n(b + off + 8, 4);
      uint64_t name_at = off + 12, desc_at = name_at + ((namesz + 3) & ~(uint64_t)3);
      if (!elf_in_blob(s.size, name_at, namesz) || !elf_in_blob(s.size, desc_at, descsz))
        return amd_bad(g, "a note runs past its section");
      if (type == NT_AMDGPU_METADATA_ && namesz == 7 && !memcmp(b + name_at, "AMDGPU", 7)) {
        *desc = b + desc_at;
        *size = (size_t)descsz;
        return GPUBLOB_OK;
      }
      off = desc_at + ((descsz + 3) & ~(uint64_t)3);
    }
  }
  return amd_bad(g, "none in the code object");
}

/* The kernels of a code object, from its note (amd_note). */
GPUBLOB_PRIVATE int meta_amdgpu_read_note(gpublob *g, const unsigned char *p, size_t n, const char *chip, ktable *t) {
  const unsigned char *desc;
  size_t size;
  return amd_note(g, p, n, &desc, &size) ? g->code : amd_map(g, desc, size, t, chip);
}

/* The note's amdhsa.target ("amdgcn-amd-amdhsa--gfx90a:xnack+") into target (size
** bytes, NUL-ended); "" when the note has none or it does not fit. */
GPUBLOB_PRIVATE int meta_amdgpu_read_target(gpublob *g, const unsigned char *p, size_t n, char *target, size_t size) {
  const unsigned char *desc;
  size_t dn, pairs;
  *target = 0;
  if (amd_note(g, p, n, &desc, &dn)) return g->code;
  mp_cur c = {desc, desc + dn, 0};
  if (mp_map(&c, &pairs)) return amd_bad(g, "not a MessagePack map");
  for (size_t i = 0; i < pairs && !c.bad; i++) {
    const char *key, *v;
    size_t kn, vn;
    if (mp_str(&c, &key, &kn)) return amd_bad(g, "a key of the map is not a string");
    if (!mp_is(key, kn, "amdhsa.target")) {
      mp_skip(&c, MSGPACK_MAX_DEPTH);
      continue;
    }
    if (mp_str(&c, &v, &vn)) return amd_bad(g, "amdhsa.target is not a string");
    if (vn < size) memcpy(target, v, vn), target[vn] = 0;
    return GPUBLOB_OK;
  }
  return c.bad ? amd_bad(g, "cut short or malformed") : GPUBLOB_OK;
}

/* The linker that made a code object, as its .comment names it ("Linker: Debian LLD
** 22.1.8": "Debian LLD 22.1.8"), into tool (size bytes, NUL-ended); "" when it names
** none. */
GPUBLOB_PRIVATE void meta_amdgpu_read_tool(const elf_view *e, char *tool, size_t size) {
  static const char linker[] = "Linker: ";
  long i = elf_find(e, ".comment", 8);
  elf_section s = i < 0 ? (elf_section){0} : elf_sec(e, (size_t)i);
  const unsigned char *b = i < 0 ? NULL : elf_bytes(e, &s);
  *tool = 0;
  for (uint64_t at = 0; b && at < s.size;) {
    const unsigned char *z = memchr(b + at, 0, (size_t)(s.size - at));
    size_t n = z ? (size_t)(z - (b + at)) : (size_t)(s.size - at);
    if (n > sizeof linker - 1 && !memcmp(b + at, linker, sizeof linker - 1) && n - (sizeof linker - 1) < size) {
      memcpy(tool, b + at + sizeof linker - 1, n - (sizeof linker - 1));
      tool[n - (sizeof linker - 1)] = 0;
      return;
    }
    at += n + 1;
  }
}
