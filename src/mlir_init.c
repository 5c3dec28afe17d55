/* src/mlir_init.c: MLIR: its C API, one-time registration, a context per call, diagnostics
** captured into the handle. */


/* ---- MLIR: one-time registration, a context per call, diagnostics captured ---- */
GPUBLOB_PRIVATE pthread_once_t mlir_init_once = PTHREAD_ONCE_INIT;
GPUBLOB_PRIVATE pthread_once_t mlir_init_passes_once = PTHREAD_ONCE_INIT;
GPUBLOB_PRIVATE MlirDialectRegistry mlir_init_registry;

/* Every dialect and its extensions (convert-gpu-to-nvvm lowers arith, memref and
** the like through interfaces the extensions add). */
GPUBLOB_PRIVATE void mlir_init(void) {
  mlir_init_registry = mlirDialectRegistryCreate();
  mlirRegisterAllDialects(mlir_init_registry);
}

/* Every pass, for pipeline strings: 1.5 ms, spent only when something is lowered. */
GPUBLOB_PRIVATE void mlir_init_passes_init(void) { mlirRegisterAllPasses(); }

GPUBLOB_PRIVATE mlir_init_span mlir_init_sref(MlirStringRef r) { return (mlir_init_span){r.data, r.length}; }

GPUBLOB_PRIVATE MlirStringRef mlir_init_cref(const char *s) { return mlirStringRefCreateFromCString(s); }

GPUBLOB_PRIVATE void mlir_init_append_ref(MlirStringRef r, void *b) { sb_addn(b, r.data, r.length); }

/* file:line:col when the location has one, else MLIR's own form of it. */
static void add_location(strbuf *b, MlirLocation loc) {
  if (mlirLocationIsAFileLineColRange(loc)) {
    mlir_init_span f = mlir_init_sref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)));
    sb_addf(b, "%.*s:%d:%d", (int)f.n, f.s, mlirLocationFileLineColRangeGetStartLine(loc),
            mlirLocationFileLineColRangeGetStartColumn(loc));
  } else {
    mlirLocationPrint(loc, mlir_init_append_ref, b);
  }
}

/* MLIR's "see current operation" notes print a whole function: they are left out. */
GPUBLOB_PRIVATE MlirLogicalResult mlir_init_on_diagnostic(MlirDiagnostic d, void *arg) {
  static const char *const sev[] = {"error", "warning", "note", "remark"};
  strbuf *b = arg, text = {0};
  MlirDiagnosticSeverity s = mlirDiagnosticGetSeverity(d);
  mlirDiagnosticPrint(d, mlir_init_append_ref, &text);
  int skip = s == MlirDiagnosticRemark || !strncmp(sb_str(&text), "see current operation", 21);
  if (!skip) {
    if (b->len) sb_add(b, "\n");
    add_location(b, mlirDiagnosticGetLocation(d));
    sb_addf(b, ": %s: %s", sev[s], sb_str(&text));
  }
  sb_free(&text);
  if (skip) return mlirLogicalResultSuccess();
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(d); i++)
    mlir_init_on_diagnostic(mlirDiagnosticGetNote(d, i), arg);
  return mlirLogicalResultSuccess();
}
