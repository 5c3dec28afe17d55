/* src/isolate_wire.c: Isolation's wire: records over a socket between the host, the helper and a child. */

/* ---- isolation: a job's LLVM work in a child process ---- */

GPUBLOB_PRIVATE int isolate_wire_put_record(int fd, char kind, const strbuf *payload) {
  unsigned char head[9] = {(unsigned char)kind};
  uint64_t n = payload ? payload->len : 0;
  memcpy(head + 1, &n, sizeof n);
  return io_write_all(fd, head, sizeof head) || (n && io_write_all(fd, payload->s, payload->len)) ? -1 : 0;
}

/* Exactly n bytes into b (reset first); -1 at EOF or on an error before them. */
static int read_exact(int fd, strbuf *b, size_t n) {
  sb_reset(b);
  return io_read_upto(fd, b, n) == (ssize_t)n ? 0 : -1;
}

/* The next record; its payload into out.  -1 at EOF or on error. */
GPUBLOB_PRIVATE int isolate_wire_get_record(int fd, char *kind, strbuf *out) {
  uint64_t n;
  if (read_exact(fd, out, 9)) return -1;
  memcpy(&n, out->s + 1, sizeof n);
  if (n > (1ULL << 40)) return -1;
  *kind = out->s[0];
  return read_exact(fd, out, (size_t)n);
}

/* The job as the child rebuilds it: its options, resolved again there as here,
** the environment and directory it searches from, and the module's bytes. */
GPUBLOB_PRIVATE void isolate_wire_put_job(strbuf *b, const job *j, const void *module, size_t size) {
  const gpublob_options *o = &j->opts;
  const char *const strs[] = {j->t->name, j->chip, o->features, o->lib_dirs, o->tool_dirs, j->name,
                              sb_str(&j->dump)};
  for (size_t i = 0; i < sizeof strs / sizeof *strs; i++) cache_store_put_str(b, strs[i]);
  cache_store_put_u64(b, (uint64_t)o->opt);
  cache_store_put_u64(b, (uint64_t)o->format);
  cache_store_put_u64(b, o->flags);
  cache_store_put_u64(b, o->abi);
  cache_store_put_u64(b, j->abi_default);
  cache_store_put_u64(b, (uint64_t)j->keep_asm);
  cache_store_put_u64(b, (uint64_t)j->mlir_input);
  cache_store_put_str(b, o->toolkit ? o->toolkit : "");
  cache_store_put_u64(b, o->link ? o->nlink : 0);
  for (size_t i = 0; o->link && i < o->nlink; i++) cache_store_put_str(b, o->link[i] ? o->link[i] : "");
  cache_store_put_u64(b, o->job_timeout);
  cache_store_put_u64(b, (uint64_t)o->fp_contract);
  cache_store_put_u64(b, (uint64_t)o->as);
  cache_store_put_u64(b, (uint64_t)o->debug);
  char *cwd = getcwd(NULL, 0);
  cache_store_put_str(b, cwd ? cwd : "/");
  free(cwd);
  size_t n = 0, shipped = 0;
  while (environ[n]) n++;
  for (size_t i = 0; i < n; i++) shipped += !proc_env_withheld(environ[i]);
  cache_store_put_u64(b, shipped);
  for (size_t i = 0; i < n; i++)
    if (!proc_env_withheld(environ[i])) cache_store_put_str(b, environ[i]);
  cache_store_put_u64(b, size);
  sb_addn(b, module, size);
}

GPUBLOB_PRIVATE void isolate_wire_put_result(strbuf *b, int rc, const job *j) {
  cache_store_put_u64(b, (uint64_t)rc);
  cache_store_put_str(b, gpublob_error_message(j->g));
  cache_store_put_str(b, sb_str(&j->g->warn));
  cache_store_put_blob(b, &j->out);
  cache_store_put_blob(b, &j->asm_out);
  cache_store_put_str(b, j->chip); /* pins may have named the id's open modifiers (adopt_pinned_modifiers) */
  cache_store_put_u64(b, (uint64_t)j->kernels_known); /* the module's kernels, for magic_check_blob (module_check_note_kernels) */
  cache_store_put_u64(b, j->kernels.len);
  sb_addn(b, j->kernels.s ? j->kernels.s : "", j->kernels.len);
  for (int i = 0; i < NPHASES; i++) sb_addn(b, (const char *)&j->ms[i], sizeof j->ms[i]);
}
