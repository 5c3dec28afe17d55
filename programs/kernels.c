/* programs/kernels.c: each output's kernels, read from its blob by the public API
** (gpublob_kernel_get, gpublob_param_get): --metadata's JSON and --verbose's ptxas
** -v-like lines, with each kernel's parameters; and write_results, which reads
** them (and makes --emit-c's header and --emit-object's object) before any output
** is written, so that a blob its reader refuses leaves nothing written. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_str(text *t, const char *s) {
  text_addf(t, "\"");
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\') text_addf(t, "\\%c", ch);
    else if (ch < 0x20) text_addf(t, "\\u%04x", ch);
    else text_addf(t, "%c", ch);
  }
  text_addf(t, "\"");
}

/* A figure, null when the blob does not record it. */
static void json_num(text *t, const char *key, long long v) {
  if (v < 0) text_addf(t, ", \"%s\": null", key);
  else text_addf(t, ", \"%s\": %lld", key, v);
}

/* A kernel's figures, its object left open for its "params". */
static void json_kernel(text *t, const gpublob_kernel_info *k) {
  text_addf(t, "{\"name\": ");
  json_str(t, k->name);
  text_addf(t, ", \"chip\": ");
  json_str(t, k->chip);
  json_num(t, "registers", k->registers);
  json_num(t, "spills", k->spills);
  json_num(t, "shared_bytes", k->shared_bytes);
  json_num(t, "local_bytes", k->local_bytes);
  json_num(t, "max_threads", k->max_threads);
  json_num(t, "params_bytes", k->params_bytes);
  const struct { const char *key; long long v; } extra[] = {
      {"sgprs", k->sgprs}, {"agprs", k->agprs}, {"vgpr_spills", k->vgpr_spills},
      {"sgpr_spills", k->sgpr_spills}, {"wave_size", k->wave_size}};
  for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
    if (extra[i].v >= 0) json_num(t, extra[i].key, extra[i].v);
  if (k->reqd_threads[0])
    text_addf(t, ", \"reqd_threads\": [%lld, %lld, %lld]", k->reqd_threads[0], k->reqd_threads[1], k->reqd_threads[2]);
  json_num(t, "spill_store_bytes", k->spill_store_bytes);
  json_num(t, "spill_load_bytes", k->spill_load_bytes);
  json_num(t, "barriers", k->barriers);
  if (k->occupancy < 0) text_addf(t, ", \"occupancy\": null, \"occupancy_limiter\": null");
  else text_addf(t, ", \"occupancy\": %.4g, \"occupancy_limiter\": \"%s\"", k->occupancy, k->occupancy_limiter);
  if (k->blocks_per_sm >= 0) json_num(t, "blocks_per_sm", k->blocks_per_sm);
  if (k->waves_per_simd >= 0) json_num(t, "waves_per_simd", k->waves_per_simd);
  json_num(t, "occupancy_block_size", k->occupancy_block_size);
}

/* Kernel k of output i's parameters as a JSON list into t, and (f not NULL) a line of
** them to f after lead, "NAME params: INDEX@OFFSET:SIZE KIND[ SPACE], ..." ("none"
** for none); the call's code. */
int kernel_params(gpublob *g, const gpublob_result *r, size_t i, size_t k, const char *name, FILE *f, const char *lead,
                  text *t) {
  size_t n = 0;
  text line = {0};
  char *kernel = strdup(name); /* the handle's strings last until its next call */
  int rc = kernel ? gpublob_param_count(g, r, i, k, &n) : GPUBLOB_NOMEM;
  text_addf(t, ", \"params\": [");
  for (size_t p = 0; !rc && p < n; p++) {
    gpublob_param_info a;
    if ((rc = gpublob_param_get(g, r, i, k, p, &a, sizeof a))) break;
    text_addf(t, "%s{\"index\": %lld, \"offset\": %lld, \"size\": %lld, \"kind\": ", p ? ", " : "", a.index,
              a.offset, a.size);
    json_str(t, a.kind);
    text_addf(t, ", \"hidden\": %s", a.hidden ? "true" : "false");
    if (*a.address_space) text_addf(t, ", \"address_space\": "), json_str(t, a.address_space);
    if (*a.name) text_addf(t, ", \"name\": "), json_str(t, a.name);
    text_addf(t, "}");
    text_addf(&line, "%s%lld@%lld:%lld %s%s%s", p ? ", " : "", a.index, a.offset, a.size, a.kind,
              *a.address_space ? " " : "", a.address_space);
  }
  text_addf(t, "]");
  if (!rc && f) fprintf(f, "%s%s params: %s\n", lead, kernel, n && line.s ? line.s : "none");
  free(line.s);
  free(kernel);
  return rc;
}

/* One ptxas -v-like line to f, after lead: the figures the blob records. */
void verbose_kernel(FILE *f, const char *lead, const gpublob_output *o, const gpublob_kernel_info *k) {
  char line[1024];
  int n = snprintf(line, sizeof line, "%s%s (%s %s):", lead, k->name, o->target, k->chip);
  const struct { long long v; const char *fmt; } part[] = {
      {k->registers, " %lld registers,"}, {k->sgprs, " %lld sgprs,"}, {k->agprs, " %lld agprs,"},
      {k->spills, " %lld spills,"}, {k->shared_bytes, " %lld bytes shared,"}, {k->local_bytes, " %lld bytes stack,"},
      {k->params_bytes, " %lld bytes params,"}, {k->max_threads, " max %lld threads,"},
      {k->wave_size, " wave %lld,"}, {k->spill_store_bytes, " %lld bytes spill stores,"},
      {k->spill_load_bytes, " %lld bytes spill loads,"}, {k->barriers, " %lld barriers,"}};
  for (size_t i = 0; i < sizeof part / sizeof *part; i++)
    if (part[i].v >= 0 && n > 0 && (size_t)n < sizeof line) n += snprintf(line + n, sizeof line - (size_t)n, part[i].fmt, part[i].v);
  if (k->reqd_threads[0] && n > 0 && (size_t)n < sizeof line)
    n += snprintf(line + n, sizeof line - (size_t)n, " required %lldx%lldx%lld threads,", k->reqd_threads[0],
                  k->reqd_threads[1], k->reqd_threads[2]);
  if (k->occupancy >= 0 && n > 0 && (size_t)n < sizeof line)
    n += snprintf(line + n, sizeof line - (size_t)n, " occupancy %.2f (%s; %lld %s of %lld threads),", k->occupancy,
                  k->occupancy_limiter, k->blocks_per_sm >= 0 ? k->blocks_per_sm : k->waves_per_simd,
                  k->blocks_per_sm >= 0 ? "blocks an SM" : "waves a SIMD", k->occupancy_block_size);
  if (n > 0 && (size_t)n < sizeof line && line[n - 1] == ',') line[n - 1] = 0;
  fprintf(f, "%s\n", line);
}

/* The kernels of every output: --verbose lines, and --metadata's JSON into *json.
** An output that records none (assembly, bitcode, MLIR's module) has "kernels": null;
** a blob its reader refuses fails (its code), before any output is written. */
int read_kernels(gpublob *g, const cli *c, const gpublob_result *r, text *json) {
  text_addf(json, "{\"outputs\": [");
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    size_t n = 0;
    int rc = gpublob_kernel_count(g, r, i, &n);
    if (rc && rc != GPUBLOB_FORMAT) {
      fprintf(stderr, "gpublob: error: kernel metadata of %s %s: %s\n", o->target, o->chip, gpublob_error_message(g));
      return 10 + rc;
    }
    text_addf(json, "%s\n  {\"target\": ", i ? "," : "");
    json_str(json, o->target);
    text_addf(json, ", \"chip\": ");
    json_str(json, o->chip);
    text_addf(json, rc ? ", \"kernels\": null}" : ", \"kernels\": [");
    for (size_t k = 0; !rc && k < n; k++) {
      gpublob_kernel_info info;
      if ((rc = gpublob_kernel_get(g, r, i, k, &info, sizeof info))) {
        fprintf(stderr, "gpublob: error: kernel metadata: %s\n", gpublob_error_message(g));
        return 10 + rc;
      }
      text_addf(json, "%s\n    ", k ? "," : "");
      json_kernel(json, &info);
      if (c->verbose) verbose_kernel(stderr, "gpublob: ", o, &info);
      if ((rc = kernel_params(g, r, i, k, info.name, c->verbose ? stderr : NULL, "gpublob: ", json))) {
        fprintf(stderr, "gpublob: error: kernel parameters: %s\n", gpublob_error_message(g));
        return 10 + rc;
      }
      text_addf(json, "}");
    }
    if (!rc) text_addf(json, "%s]}", n ? "\n  " : "");
  }
  text_addf(json, "\n]}\n");
  if (c->verbose && c->opts.as == GPUBLOB_AS_CLANG)
    fprintf(stderr, "gpublob: --as clang: the blob tool was asked for no report, as clang asks none (ptxas "
            "without -v), so the figures only its report gives (NVIDIA's spill bytes and barriers) are not "
            "known\n");
  return json->oom ? fail("%s", "out of memory") : 0;
}


/* The outputs, with their kernels when asked: read first, so a refused blob leaves
** nothing written; then every file of the call written at once (write_outputs). */
int write_results(gpublob *g, const cli *c, const gpublob_result *r, int mlir) {
  text json = {0}, deps = {0};
  written_files w = {{0}, {0}, {0}, {0}};
  int rc = c->metadata || c->verbose ? read_kernels(g, c, r, &json) : 0;
  if (!rc && c->emit_c && (rc = c_header(c, g, r, &w.header))) rc = 10 + GPUBLOB_IO;
  if (!rc && c->emit_object) rc = host_object(c, r, &w.object);
  if (!rc && c->depfile && (rc = depfile_text(g, c, r, mlir, &deps))) rc = 10 + GPUBLOB_IO;
  w.metadata = (gpublob_blob){(unsigned char *)json.s, json.len, ""};
  w.depfile = (gpublob_blob){(unsigned char *)deps.s, deps.len, ""};
  if (!rc) rc = write_outputs(c, r, mlir, &w);
  free(json.s);
  free(deps.s);
  free(w.header.data);
  free(w.object.data);
  return rc;
}
