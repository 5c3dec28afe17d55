/* src/internal_mlir.h: what MLIR's parts share (src/parts.h's third group), each
** thing declared once, part by part, each named with its part's prefix (src/internal.h
** says how).  gpublob.c includes it before MLIR's parts (GPUBLOB_MLIR). */
#ifndef GPUBLOB_INTERNAL_MLIR_H
#define GPUBLOB_INTERNAL_MLIR_H

#include <mlir-c/BuiltinAttributes.h>
#include <mlir-c/Diagnostics.h>
#include <mlir-c/Dialect/GPU.h>
#include <mlir-c/IR.h>
#include <mlir-c/Pass.h>
#include <mlir-c/RegisterEverything.h>
#include <mlir-c/Support.h>
#include <mlir-c/Target/LLVMIR.h>

#include "../gpublob_mlir.h" /* the public calls that take MLIR objects (src/api_mlir.c) */
/* The dialects the spec's mlir_dialects name, and those every lowering touches: the
** pass depends on them (src/mlir_pass.c), the API registers them (src/api_mlir.c). */
#define GPUBLOB_MLIR_DIALECT(x) MLIR_CAPI_EXPORTED MlirDialectHandle mlirGetDialectHandle__##x##__(void);
#include "gpublob_targets.def"

/* ---- src/mlir_init.c (mlir_init_) ---- */
typedef struct mlir_init_span {
  const char *s;
  size_t n;
} mlir_init_span;
GPUBLOB_PRIVATE_DATA pthread_once_t mlir_init_once;
GPUBLOB_PRIVATE_DATA pthread_once_t mlir_init_passes_once;
GPUBLOB_PRIVATE_DATA MlirDialectRegistry mlir_init_registry;
GPUBLOB_PRIVATE void mlir_init(void);
GPUBLOB_PRIVATE void mlir_init_passes_init(void);
GPUBLOB_PRIVATE mlir_init_span mlir_init_sref(MlirStringRef r);
GPUBLOB_PRIVATE MlirStringRef mlir_init_cref(const char *s);
GPUBLOB_PRIVATE void mlir_init_append_ref(MlirStringRef r, void *b);
GPUBLOB_PRIVATE MlirLogicalResult mlir_init_on_diagnostic(MlirDiagnostic d, void *arg);

/* ---- src/mlir_plan.c (mlir_plan_) ---- */
typedef struct mlir_plan_gpu_item { /* one gpu.module for one target: one output, a chip or a pack */
  MlirOperation gm;    /* the gpu.module */
  MlirAttribute attr;  /* its #gpu.object target; null for legacy */
  const target_desc *t;
  size_t output;       /* its output in the plan, and so its jobs (none for an own item) */
  int own;             /* its target's mlir_serializer is mlir: MLIR's serialiser, no job */
  MlirAttribute object; /* an own item's #gpu.object, as MLIR made it */
  strbuf features, pipeline, name;
  strbuf tool_options;   /* the options' tool_options, then the attribute's, quoted */
  strbuf link_paths;     /* the options' link files, then the attribute's, each NUL-ended */
  const char **link;     /* into link_paths: its jobs' options' link */
  MlirOperation lowered; /* a lowered copy (in a builtin.module), or null */
  int owns_lowered;
  gpublob_blob blob;
} mlir_plan_gpu_item;
typedef struct mlir_plan_call_state {
  gpublob *g;
  gpublob_options o; /* the call's settled options (options_normalise) */
  MlirContext ctx;
  const char *name;
  strbuf diag;
  MlirOperation *gpu_modules;
  size_t ngpu_modules;
  mlir_plan_gpu_item *items;
  size_t nitems;
  plan p;            /* every item's jobs and outputs */
  int oom;
  digest_cache *c;          /* where the result goes, or NULL */
  const digest_key128 *k0;
  int may_outline;   /* the module is gpublob's own (parsed from the input): gpu.launch may be outlined */
} mlir_plan_call_state;
GPUBLOB_PRIVATE int mlir_plan_op_is(MlirOperation op, const char *name);
GPUBLOB_PRIVATE int mlir_plan_find_gpu_modules(mlir_plan_call_state *m, MlirOperation top);
GPUBLOB_PRIVATE int mlir_plan_item_error(mlir_plan_call_state *m, mlir_plan_gpu_item *it, int code, const char *fmt, const char *detail);
GPUBLOB_PRIVATE unsigned mlir_plan_flag_effect(const char *name, size_t n);
GPUBLOB_PRIVATE int mlir_plan_module(mlir_plan_call_state *m, MlirOperation gm);
GPUBLOB_PRIVATE mlir_plan_gpu_item *mlir_plan_item_of_job(mlir_plan_call_state *m, size_t i);
GPUBLOB_PRIVATE job *mlir_plan_item_job(mlir_plan_call_state *m, const mlir_plan_gpu_item *it);
GPUBLOB_PRIVATE const char *mlir_plan_item_chip(mlir_plan_call_state *m, const mlir_plan_gpu_item *it);
GPUBLOB_PRIVATE void mlir_plan_name_error(mlir_plan_call_state *m, const mlir_plan_gpu_item *it);
GPUBLOB_PRIVATE int mlir_plan_check_items(mlir_plan_call_state *m);

/* ---- src/mlir_select.c (mlir_select_) ---- */
GPUBLOB_PRIVATE int mlir_select_attach_mode(const mlir_plan_call_state *m);
GPUBLOB_PRIVATE MlirAttribute mlir_select_target_attr_for(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, const job *j, const char *chip, strbuf *text);
GPUBLOB_PRIVATE int mlir_select_check_attach(mlir_plan_call_state *m);

/* ---- src/mlir_lower.c (mlir_lower_) ---- */
GPUBLOB_PRIVATE int mlir_lower_is_lowered(const mlir_plan_gpu_item *it);
GPUBLOB_PRIVATE void mlir_lower_pipeline_error(MlirStringRef r, void *arg);
GPUBLOB_PRIVATE int mlir_lower_outline_launches(mlir_plan_call_state *m, MlirOperation top);
GPUBLOB_PRIVATE int mlir_lower_item(mlir_plan_call_state *m, mlir_plan_gpu_item *it);
GPUBLOB_PRIVATE int mlir_lower_item_source(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, MlirOperation *out);

/* ---- src/mlir_own.c (mlir_own_) ---- */
GPUBLOB_PRIVATE int mlir_own_items(mlir_plan_call_state *m);

/* ---- src/mlir_translate.c (mlir_translate_) ---- */
GPUBLOB_PRIVATE int mlir_translate_compile_items(mlir_plan_call_state *m);

/* ---- src/mlir_kernels.c (mlir_kernels_) ---- */
GPUBLOB_PRIVATE int mlir_kernels_limits_check(mlir_plan_call_state *m);
GPUBLOB_PRIVATE int mlir_kernels_summary(mlir_plan_call_state *m, strbuf *summary);
GPUBLOB_PRIVATE MlirAttribute mlir_kernels_kernel_table(mlir_plan_call_state *m, const mlir_plan_gpu_item *it, int format);

/* ---- src/mlir_attach.c (mlir_attach_) ---- */
GPUBLOB_PRIVATE void mlir_attach_legacy(mlir_plan_call_state *m);
GPUBLOB_PRIVATE int mlir_attach_binary(mlir_plan_call_state *m);

/* ---- src/mlir_serialize.c (mlir_serialize_) ---- */
GPUBLOB_PRIVATE int mlir_serialize_in(gpublob *g, const gpublob_options *o, MlirOperation top,
                        const char *name, int register_translations, mlir_serialize_out *out);
GPUBLOB_PRIVATE int mlir_serialize_on_parse_stack(gpublob *g, const gpublob_options *o, MlirOperation top,
                                    const char *name, int register_translations);

/* ---- src/mlir_io.c (mlir_io_) ---- */
GPUBLOB_PRIVATE int mlir_io_print(gpublob *g, MlirOperation top, unsigned flags, gpublob_blob *out);

/* ---- src/mlir_pass.c (mlir_pass_) ---- */
typedef struct mlir_pass_state {
  gpublob_options o; /* strings and the target list live in store */
  char *store;
} mlir_pass_state;
GPUBLOB_PRIVATE mlir_pass_state *mlir_pass_state_new(const gpublob_options *o_settled);
GPUBLOB_PRIVATE const char *mlir_pass_location_name(MlirOperation op, strbuf *b);
GPUBLOB_PRIVATE void mlir_pass_construct(void *arg);
GPUBLOB_PRIVATE void mlir_pass_destruct(void *arg);
GPUBLOB_PRIVATE void *mlir_pass_clone(void *arg);
GPUBLOB_PRIVATE MlirLogicalResult mlir_pass_initialize(MlirContext ctx, void *arg);
GPUBLOB_PRIVATE void mlir_pass_run(MlirOperation op, MlirExternalPass pass, void *arg);
GPUBLOB_PRIVATE MlirTypeID mlir_pass_type_id(void);



#endif /* GPUBLOB_INTERNAL_MLIR_H */
