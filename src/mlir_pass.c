/* src/mlir_pass.c: MLIR: the external pass (gpublob-serialize). */

/* ---- MLIR: the external pass ---- */

static size_t strsize(const char *s) { return s ? strlen(s) + 1 : 0; }

static const char *copy_into(char **p, const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  memcpy(*p, s, n);
  *p += n;
  return *p - n;
}

/* One allocation holds the options' strings and target list; o is settled. */
GPUBLOB_PRIVATE mlir_pass_state *mlir_pass_state_new(const gpublob_options *o_settled) {
  mlir_pass_state *s = calloc(1, sizeof *s);
  if (!s) return NULL;
  s->o = *o_settled;
  gpublob_options *o = &s->o;
  if ((o->ntargets && !o->targets) || o->ntargets > 4096) {
    free(s);
    return NULL;
  }
  size_t n = o->ntargets * sizeof(gpublob_target_choice) + strsize(o->target) + strsize(o->chip) +
             strsize(o->features) + strsize(o->tool) + strsize(o->tool_dirs) +
             strsize(o->lib_dirs) + strsize(o->pipeline) + strsize(o->tool_options) + strsize(o->toolkit) +
             strsize(o->section);
  if (o->nlink && !o->link) {
    free(s);
    return NULL;
  }
  n += o->nlink * sizeof(char *);
  for (size_t i = 0; i < o->nlink; i++) n += strsize(o->link[i]);
  for (size_t i = 0; o->targets && i < o->ntargets; i++)
    n += strsize(o->targets[i].target) + strsize(o->targets[i].chip) + strsize(o->targets[i].features);
  char *p = s->store = malloc(n ? n : 1);
  if (!p) {
    free(s);
    return NULL;
  }
  const char **link = (const char **)p; /* pointers first: their alignment */
  p += o->nlink * sizeof *link;
  gpublob_target_choice *list = (gpublob_target_choice *)p;
  p += o->ntargets * sizeof *list;
  for (size_t i = 0; o->targets && i < o->ntargets; i++)
    list[i] = (gpublob_target_choice){copy_into(&p, o->targets[i].target),
                                      copy_into(&p, o->targets[i].chip),
                                      copy_into(&p, o->targets[i].features)};
  o->targets = o->ntargets ? list : NULL;
  o->target = copy_into(&p, o->target);
  o->chip = copy_into(&p, o->chip);
  o->features = copy_into(&p, o->features);
  o->tool = copy_into(&p, o->tool);
  o->tool_dirs = copy_into(&p, o->tool_dirs);
  o->lib_dirs = copy_into(&p, o->lib_dirs);
  o->pipeline = copy_into(&p, o->pipeline);
  o->tool_options = copy_into(&p, o->tool_options);
  o->toolkit = copy_into(&p, o->toolkit);
  o->section = copy_into(&p, o->section);
  for (size_t i = 0; i < o->nlink; i++) link[i] = copy_into(&p, o->link[i]);
  o->link = o->nlink ? link : NULL;
  return s;
}

/* The file of op's location, a name for messages: in b, or "<module>". */
GPUBLOB_PRIVATE const char *mlir_pass_location_name(MlirOperation op, strbuf *b) {
  MlirLocation loc = mlirOperationGetLocation(op);
  if (!mlirLocationIsAFileLineColRange(loc)) return "<module>";
  mlir_init_span f = mlir_init_sref(mlirIdentifierStr(mlirLocationFileLineColRangeGetFilename(loc)));
  sb_addn(b, f.s, f.n);
  return b->oom ? "<module>" : sb_str(b);
}

GPUBLOB_PRIVATE void mlir_pass_construct(void *arg) { (void)arg; }

GPUBLOB_PRIVATE void mlir_pass_destruct(void *arg) {
  mlir_pass_state *s = arg;
  free(s->store);
  free(s);
}

GPUBLOB_PRIVATE void *mlir_pass_clone(void *arg) { return mlir_pass_state_new(&((mlir_pass_state *)arg)->o); }

/* The dialects are the pass's dependent dialects (loaded by MLIR before it runs);
** the LLVM IR translations are registered here, once per pass manager run. */
GPUBLOB_PRIVATE MlirLogicalResult mlir_pass_initialize(MlirContext ctx, void *arg) {
  (void)arg;
  mlirRegisterAllLLVMTranslations(ctx);
  return mlirLogicalResultSuccess();
}

GPUBLOB_PRIVATE void mlir_pass_run(MlirOperation op, MlirExternalPass pass, void *arg) {
  mlir_pass_state *s = arg;
  gpublob *g = NULL;
  int rc = s ? gpublob_open(&g) : GPUBLOB_NOMEM; /* a clone that ran out of memory */
  strbuf name = {0};
  if (!rc) rc = options_check_version(g, &s->o); /* settled when the pass was made, with no handle to say it in */
  if (!rc) rc = mlir_serialize_on_parse_stack(g, &s->o, op, mlir_pass_location_name(op, &name), 0);
  sb_free(&name);
  if (rc) {
    strbuf msg = {0};
    sb_add(&msg, g ? gpublob_error_message(g) : "gpublob: out of memory");
    mlirEmitError(mlirOperationGetLocation(op), msg.oom ? "gpublob: out of memory" : sb_str(&msg));
    sb_free(&msg);
    mlirExternalPassSignalFailure(pass);
  }
  gpublob_close(g);
}


GPUBLOB_PRIVATE MlirTypeID mlir_pass_type_id(void) {
  static _Alignas(8) char storage;
  return mlirTypeIDCreate(&storage);
}
