/* src/emit.c: Emission: bitcode, LLVM IR text, assembly or object, into the job's blob. */

/* ---- emission: bitcode, assembly or object, into the job's blob ---- */
static int take_buffer(job *j, LLVMMemoryBufferRef buf, const char *suffix) {
  size_t n = LLVMGetBufferSize(buf);
  j->out.data = malloc(n + 1); /* NUL-terminated: PTX goes on to nvJitLink as text */
  if (!j->out.data) {
    LLVMDisposeMemoryBuffer(buf);
    return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  }
  memcpy(j->out.data, LLVMGetBufferStart(buf), n);
  j->out.data[n] = 0;
  j->out.size = n;
  j->out.suffix = suffix;
  LLVMDisposeMemoryBuffer(buf);
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int emit(job *j, int assembly) {
  LLVMMemoryBufferRef buf = NULL;
  char *err = NULL;
  sb_reset(&j->diag);
  double t = util_now_ms();
  LLVMBool failed = LLVMTargetMachineEmitToMemoryBuffer(
      j->llvm->tm, j->llvm->mod, assembly ? LLVMAssemblyFile : LLVMObjectFile, &err, &buf);
  j->ms[PH_EMIT] += util_now_ms() - t;
  if (failed) {
    handle_set_error(j->g, GPUBLOB_BACKEND, "%s backend (%s) failed: %s", j->t->name, j->chip,
              err ? err : "");
    handle_add_detail(j->g, sb_str(&j->diag));
    LLVMDisposeMessage(err);
    return GPUBLOB_BACKEND;
  }
  return take_buffer(j, buf, assembly ? j->t->suffix_asm : ".o");
}

GPUBLOB_PRIVATE int emit_bitcode(job *j) {
  double t = util_now_ms();
  LLVMMemoryBufferRef buf = LLVMWriteBitcodeToMemoryBuffer(j->llvm->mod);
  j->ms[PH_EMIT] += util_now_ms() - t;
  return take_buffer(j, buf, ".bc");
}

/* LLVM IR text (.ll), NUL-terminated like every blob. */
GPUBLOB_PRIVATE int emit_text(job *j) {
  double t = util_now_ms();
  char *text = LLVMPrintModuleToString(j->llvm->mod);
  j->ms[PH_EMIT] += util_now_ms() - t;
  size_t n = strlen(text);
  unsigned char *copy = malloc(n + 1);
  if (copy) memcpy(copy, text, n + 1);
  LLVMDisposeMessage(text);
  if (!copy) return handle_set_error(j->g, GPUBLOB_NOMEM, "out of memory (%zu bytes)", n);
  util_blob_release(&j->out);
  j->out = (gpublob_blob){copy, n, ".ll"};
  return GPUBLOB_OK;
}
