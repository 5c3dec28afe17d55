/* src/mlir_io.c: MLIR: text or bytecode in, the whole module out. */

/* ---- MLIR: text or bytecode in, the whole module out ---- */
/* A location without a file name (what mlirModuleCreateParse gives) gets name. */
static MlirLocation named_location(MlirContext ctx, MlirLocation loc, const char *name) {
  if (!mlirLocationIsAFileLineColRange(loc) ||
      mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)).length)
    return loc;
  return mlirLocationFileLineColRangeGet(ctx, mlir_init_cref(name), (unsigned)mlirLocationFileLineColRangeGetStartLine(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetStartColumn(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetEndLine(loc),
                                         (unsigned)mlirLocationFileLineColRangeGetEndColumn(loc));
}

static MlirWalkResult name_locations(MlirOperation op, void *arg) {
  const char *name = arg;
  MlirContext ctx = mlirOperationGetContext(op);
  mlirOperationSetLocation(op, named_location(ctx, mlirOperationGetLocation(op), name));
  for (intptr_t r = 0; r < mlirOperationGetNumRegions(op); r++)
    for (MlirBlock b = mlirRegionGetFirstBlock(mlirOperationGetRegion(op, r)); !mlirBlockIsNull(b);
         b = mlirBlockGetNextInRegion(b))
      for (intptr_t a = 0; a < mlirBlockGetNumArguments(b); a++) {
        MlirValue v = mlirBlockGetArgument(b, a);
        mlirBlockArgumentSetLocation(v, named_location(ctx, mlirValueGetLocation(v), name));
      }
  return MlirWalkResultAdvance;
}

/* Text of several top-level operations (or none) goes into a module, as mlir-opt
** puts it; the parser that does so names no file, so its locations get name. */
static MlirOperation parse_wrapped(MlirContext ctx, strbuf *diag, const void *data, size_t size,
                                   const char *name) {
  sb_reset(diag);
  MlirModule mod = mlirModuleCreateParse(ctx, mlirStringRefCreate(data, size));
  if (mlirModuleIsNull(mod)) return (MlirOperation){NULL};
  MlirOperation top = mlirModuleGetOperation(mod);
  mlirOperationWalk(top, name_locations, (void *)name, MlirWalkPreOrder);
  return top;
}

/* The module parsed into *top (null when it cannot be: the error is returned). */
static int parse_mlir(gpublob *g, MlirContext ctx, strbuf *diag, const void *data, size_t size,
                      const char *name, MlirOperation *top) {
  *top = mlirOperationCreateParse(ctx, mlirStringRefCreate(data, size), mlir_init_cref(name));
  int bc = input_looks_like_mlir_bytecode(data, size);
  if (mlirOperationIsNull(*top) && !bc && strstr(sb_str(diag), "source must contain a single top-level operation"))
    *top = parse_wrapped(ctx, diag, data, size, name);
  if (!mlirOperationIsNull(*top)) return GPUBLOB_OK;
  int rc = handle_set_error(g, bc ? GPUBLOB_BITCODE : GPUBLOB_PARSE, "%s: cannot parse or verify the MLIR %s", name,
                     bc ? "bytecode" : "text");
  handle_add_detail(g, sb_str(diag));
  return rc;
}

static void append_bytes(MlirStringRef r, void *b) { sb_addn(b, r.data, r.length); }

GPUBLOB_PRIVATE int mlir_io_print(gpublob *g, MlirOperation top, unsigned flags, gpublob_blob *out) {
  strbuf text = {0};
  int bc = (flags & GPUBLOB_FLAG_MLIR_BYTECODE) != 0;
  if (bc) {
    mlirOperationWriteBytecode(top, append_bytes, &text);
  } else {
    mlirOperationPrint(top, append_bytes, &text);
    sb_add(&text, "\n");
  }
  if (text.oom) {
    sb_free(&text);
    return handle_set_error(g, GPUBLOB_NOMEM, "out of memory");
  }
  out->data = (unsigned char *)text.s;
  out->size = text.len;
  out->suffix = bc ? ".mlirbc" : ".mlir";
  return GPUBLOB_OK;
}

GPUBLOB_PRIVATE int mlir_io_compile(gpublob *g, const gpublob_options *o, const void *data, size_t size,
                        const char *name, mlir_serialize_out *out) {
  double t = util_now_ms();
  pthread_once(&mlir_init_once, mlir_init);
  MlirContext ctx = mlirContextCreateWithRegistry(mlir_init_registry, false);
  strbuf diag = {0};
  MlirDiagnosticHandlerID h = mlirContextAttachDiagnosticHandler(ctx, mlir_init_on_diagnostic, &diag, NULL);
  MlirOperation top;
  int rc = parse_mlir(g, ctx, &diag, data, size, name, &top);
  mlirContextDetachDiagnosticHandler(ctx, h);
  if (!mlirOperationIsNull(top) && !mlir_plan_op_is(top, "builtin.module")) { /* a bare gpu.module */
    MlirModule wrap = mlirModuleCreateEmpty(mlirOperationGetLocation(top));
    mlirBlockAppendOwnedOperation(mlirModuleGetBody(wrap), top);
    top = mlirModuleGetOperation(wrap);
  }
  sb_free(&diag);
  double parse_ms = util_now_ms() - t;
  if (!rc) rc = mlir_serialize_in(g, o, top, name, 1, out);
  t = util_now_ms(); /* MLIR's own teardown: counted with loading, as LLVM's is */
  if (!mlirOperationIsNull(top)) mlirOperationDestroy(top);
  mlirContextDestroy(ctx);
  g->stats.load_ms += parse_ms + util_now_ms() - t;
  return rc;
}
