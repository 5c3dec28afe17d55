/* src/link_files.c: The caller's bitcode files (options' link, -l, a target attribute's
** link = [...]), linked whole into the module after it is verified and before the
** device libraries, as MLIR's gpu-module-to-binary links its libraries.  A file that
** cannot be read is IO, one that is not LLVM IR is BITCODE, one for another
** architecture is TARGET, each naming the file; the module's triple and data layout
** are the file's once linked. */

/* A file's triple names the job's architecture (triple_arch), or none: another
** target's code would not be the job's to compile. */
static int link_arch_ok(const char *file, const char *job) {
  size_t n = triple_arch(job);
  return !*file || (triple_arch(file) == n && !strncmp(file, job, n));
}

/* One file, parsed in the job's context and linked into its module. */
static int link_one_file(job *j, const char *path) {
  unsigned char *data = NULL;
  size_t size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || io_read_fd(fd, &data, &size, SIZE_MAX - 1)) {
    int e = fd < 0 ? errno : EISDIR;
    if (fd >= 0) close(fd);
    return handle_set_error(j->g, GPUBLOB_IO, "cannot read the link file %s: %s", path,
                     fd < 0 ? strerror(e) : "not a readable regular file");
  }
  close(fd);
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange((const char *)data, size, path, 0);
  LLVMModuleRef lib = NULL;
  char *err = NULL;
  double t = util_now_ms();
  sb_reset(&j->diag);
  LLVMBool failed = LLVMParseIRInContext2(j->llvm->ctx, buf, &lib, &err);
  LLVMDisposeMemoryBuffer(buf);
  int rc = GPUBLOB_OK;
  if (failed) {
    rc = handle_set_error(j->g, GPUBLOB_BITCODE, "the link file %s is neither LLVM bitcode nor LLVM IR", path);
    handle_add_detail(j->g, err ? err : sb_str(&j->diag));
  } else if (!link_arch_ok(LLVMGetTarget(lib), j->triple)) {
    rc = handle_set_error(j->g, GPUBLOB_TARGET, "the link file %s is for %s, not %s", path, LLVMGetTarget(lib), j->triple);
    LLVMDisposeModule(lib);
  } else {
    LLVMSetTarget(lib, j->triple);
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(j->llvm->mod));
    if (LLVMLinkModules2(j->llvm->mod, lib)) { /* consumes lib */
      rc = handle_set_error(j->g, GPUBLOB_LINK, "linking the link file %s failed", path);
      handle_add_detail(j->g, sb_str(&j->diag));
    }
  }
  j->ms[PH_LINK] += util_now_ms() - t;
  LLVMDisposeMessage(err);
  free(data);
  return rc;
}

GPUBLOB_PRIVATE int link_files(job *j) {
  if (j->o->nlink && !j->o->link)
    return handle_set_error(j->g, GPUBLOB_MISUSE, "nlink is %zu but link is NULL", j->o->nlink);
  int rc = GPUBLOB_OK;
  for (size_t i = 0; !rc && i < j->o->nlink; i++)
    rc = j->o->link[i] ? link_one_file(j, j->o->link[i])
                       : handle_set_error(j->g, GPUBLOB_MISUSE, "link[%zu] is NULL (nlink is %zu)", i, j->o->nlink);
  return rc;
}
