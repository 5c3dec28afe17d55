/* programs/emit_c.c: --emit-c FILE.h, every output as a C array (NAME[] and
** NAME_size), a table of its kernels (NAME_kernels[], NAME_kernel_count) and one of
** their parameters (NAME_params[], NAME_param_count; since 1.7), NAME
** made by the core's names (src/names.h), so that the CLI and the dump directory
** agree on every chip's name.  The header is one more file of write_outputs'
** atomic writes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "programs/cli.h"
#include "src/names.h" /* the core's names: a chip as a part of a C identifier */

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* NAME: its input's stem, the target and the chip, each made a part of a C
** identifier (c_name_part: gfx90a:xnack+ -> gfx90a_xnack_plus), joined by '_';
** MLIR's one output is the stem alone.  A name an earlier output has gets _2, _3. */
enum { C_NAME = 512 };

static void c_name_of(const char *input, const gpublob_output *o, char *name) {
  const char *stem;
  size_t n = name_stem(strcmp(input, "-") ? input : "stdin", &stem);
  name[0] = 0;
  c_name_part(name, C_NAME - 16, stem, n);
  if (!*name) name_put(name, C_NAME - 16, "blob");
  for (const char *part[] = {o->target, o->chip, NULL}, **p = part; *p; p++)
    if (**p) {
      name_put(name, C_NAME - 16, "_");
      c_name_part(name, C_NAME - 16, *p, strlen(*p));
    }
}

/* A C string literal: quotes, backslashes and any byte outside printable ASCII as \ooo. */
static void c_string(text *t, const char *s) {
  text_addf(t, "\"");
  for (; *s; s++)
    if (*s == '"' || *s == '\\' || *s < 0x20 || *s > 0x7e) text_addf(t, "\\%03o", (unsigned char)*s);
    else text_addf(t, "%c", *s);
  text_addf(t, "\"");
}

/* One row of the table: the fields in gpublob_emitted_kernel's order.  The occupancy
** as %.17g, so the double read back is the library's own. */
static void c_kernel_row(text *f, const gpublob_kernel_info *ki) {
  text_addf(f, "    {");
  c_string(f, ki->name);
  text_addf(f, ", ");
  c_string(f, ki->chip);
  text_addf(f, ", %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, %lld, {%lld, %lld, %lld}",
            ki->registers, ki->sgprs, ki->agprs, ki->spills, ki->vgpr_spills, ki->sgpr_spills, ki->shared_bytes,
            ki->local_bytes, ki->max_threads, ki->params_bytes, ki->wave_size, ki->reqd_threads[0],
            ki->reqd_threads[1], ki->reqd_threads[2]);
  text_addf(f, ", %lld, %lld, %lld, %.17g, ", ki->spill_store_bytes, ki->spill_load_bytes, ki->barriers,
            ki->occupancy);
  c_string(f, ki->occupancy_limiter);
  text_addf(f, ", %lld, %lld, %lld},\n", ki->blocks_per_sm, ki->waves_per_simd, ki->occupancy_block_size);
}

/* Output i's kernels, by the public API (gpublob_kernel_get): an empty table where the
** blob records none (FORMAT: PTX, SPIR-V, MLIR's module) or the call fails. */
static void c_kernels(text *f, gpublob *g, const gpublob_result *r, size_t i, const char *name) {
  size_t n = 0;
  if (gpublob_kernel_count(g, r, i, &n)) n = 0;
  text_addf(f, "static const gpublob_emitted_kernel %s_kernels[%s] = {\n", name, n ? "" : "1");
  size_t shown = 0;
  for (size_t k = 0; k < n; k++) {
    gpublob_kernel_info ki;
    if (gpublob_kernel_get(g, r, i, k, &ki, sizeof ki)) continue;
    c_kernel_row(f, &ki);
    shown++;
  }
  if (!shown) text_addf(f, "    {0}\n");
  text_addf(f, "};\nstatic const size_t %s_kernel_count = %zu;\n", name, shown);
}

/* Output i's kernels' parameters, by the public API (gpublob_param_get): one table
** NAME_params[] for every kernel, each row with its kernel's row in NAME_kernels[], in
** kernel order (NAME_param_count rows); an empty one where there are none. */
static void c_params(text *f, gpublob *g, const gpublob_result *r, size_t i, const char *name) {
  size_t n = 0, shown = 0;
  text rows = {0};
  if (gpublob_kernel_count(g, r, i, &n)) n = 0;
  for (size_t k = 0; k < n; k++) {
    size_t np = 0;
    if (gpublob_param_count(g, r, i, k, &np)) np = 0;
    for (size_t p = 0; p < np; p++) {
      gpublob_param_info a;
      if (gpublob_param_get(g, r, i, k, p, &a, sizeof a)) continue;
      text_addf(&rows, "    {%zu, %lld, %lld, %lld, ", k, a.index, a.offset, a.size);
      c_string(&rows, a.kind);
      text_addf(&rows, ", %d, ", a.hidden);
      c_string(&rows, a.address_space);
      text_addf(&rows, ", ");
      c_string(&rows, a.name);
      text_addf(&rows, "},\n");
      shown++;
    }
  }
  text_addf(f, "static const gpublob_emitted_param %s_params[%s] = {\n%s", name, shown ? "" : "1",
            shown && rows.s ? rows.s : "    {0}\n");
  text_addf(f, "};\nstatic const size_t %s_param_count = %zu;\n", name, shown);
  free(rows.s);
}

/* The table's type, defined once however many headers a program includes.  It grows
** at its end only, so code reading the older fields (by name or by position) stays
** valid; GPUBLOB_EMITTED_KERNEL_VERSION tells a header of 1.4 or later that an older
** one (without the later fields) came first, which would make its rows too long. */
static const char c_kernel_type[] =
    "#if defined(GPUBLOB_EMITTED_KERNEL) && !defined(GPUBLOB_EMITTED_KERNEL_VERSION)\n"
    "#error \"gpublob_emitted_kernel: a header made before gpublob 1.4 came first; make it again\"\n"
    "#endif\n"
    "#ifndef GPUBLOB_EMITTED_KERNEL\n"
    "#define GPUBLOB_EMITTED_KERNEL\n"
    "#define GPUBLOB_EMITTED_KERNEL_VERSION 2 /* 2: since gpublob 1.4, the report and occupancy */\n"
    "/* A kernel of a blob, as gpublob_kernel_info has it; -1: not recorded (not known). */\n"
    "typedef struct gpublob_emitted_kernel {\n"
    "  const char *name, *chip;\n"
    "  long long registers, sgprs, agprs, spills, vgpr_spills, sgpr_spills;\n"
    "  long long shared_bytes, local_bytes, max_threads, params_bytes, wave_size;\n"
    "  long long reqd_threads[3];\n"
    "  /* since gpublob 1.4: the blob tool's report (NVIDIA: ptxas -v's), and the occupancy */\n"
    "  long long spill_store_bytes, spill_load_bytes, barriers;\n"
    "  double occupancy;              /* resident warps (waves) over the chip's most, 0 to 1 */\n"
    "  const char *occupancy_limiter; /* \"warps\", \"registers\", \"shared\", \"blocks\"; \"\": not known */\n"
    "  long long blocks_per_sm;       /* NVIDIA: blocks resident on an SM */\n"
    "  long long waves_per_simd;      /* AMD: waves resident on a SIMD */\n"
    "  long long occupancy_block_size; /* the block size the occupancy is for */\n"
    "} gpublob_emitted_kernel;\n"
    "#endif\n"
    "#ifndef GPUBLOB_EMITTED_PARAM\n"
    "#define GPUBLOB_EMITTED_PARAM\n"
    "/* since gpublob 1.7: a kernel's parameter, as gpublob_param_info has it, with the row of\n"
    "** its kernel in the NAME_kernels[] beside it */\n"
    "typedef struct gpublob_emitted_param {\n"
    "  size_t kernel;                     /* its kernel's row in NAME_kernels[] */\n"
    "  long long index, offset, size;     /* its place, its offset in the parameters, its bytes */\n"
    "  const char *kind;                  /* \"by_value\", \"global_buffer\", \"hidden_...\", \"pointer\" */\n"
    "  int hidden;                        /* 1: an argument the compiler adds */\n"
    "  const char *address_space, *name;  /* \"\": not recorded */\n"
    "} gpublob_emitted_param;\n"
    "#endif\n";

/* The header's text (malloc'd) into *b: each output's bytes as NAME[] and NAME_size,
** then its kernels as NAME_kernels[] and NAME_kernel_count.  0, or 2 (a message said). */
int c_header(const cli *c, gpublob *g, const gpublob_result *r, gpublob_blob *b) {
  char (*names)[C_NAME] = calloc(r->count + 1, sizeof *names), guard[C_NAME] = "";
  text f = {0};
  if (!names) return fail("%s", "out of memory");
  const char *stem;
  size_t n = name_stem(c->emit_c, &stem);
  c_name_part(guard, sizeof guard, stem, n);
  for (char *p = guard; *p; p++) *p = (char)toupper((unsigned char)*p);
  text_addf(&f, "/* %.*s.h: made by gpublob %s --emit-c from %s.  Each output is NAME[] and NAME_size,\n"
            "** its kernels NAME_kernels[] (NAME_kernel_count of them), and their parameters NAME_params[]\n"
            "** (NAME_param_count). */\n#ifndef GPUBLOB_EMIT_%s_H\n"
            "#define GPUBLOB_EMIT_%s_H\n#include <stddef.h>\n%s", (int)n, stem, gpublob_version(), c->input,
            guard, guard, c_kernel_type);
  text_addf(&f, "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
            "#pragma GCC diagnostic ignored \"-Wunused-const-variable\"\n#endif\n");
  for (size_t i = 0; i < r->count; i++) {
    const gpublob_output *o = &r->outputs[i];
    c_name_of(output_input(c, r, i), o, names[i]);
    size_t base = strlen(names[i]);
    for (unsigned k = 2;; k++) {
      size_t same = 0;
      while (same < i && strcmp(names[same], names[i])) same++;
      if (same == i) break;
      snprintf(names[i] + base, C_NAME - base, "_%u", k);
    }
    text_addf(&f, "\n/* %s%s%s (%s): %zu bytes, %s */\nstatic const unsigned char %s[] = {",
              *o->target ? o->target : "MLIR", *o->chip ? " " : "", o->chip, *o->tool ? o->tool : "gpublob",
              o->blob.size, o->blob.suffix ? o->blob.suffix : "", names[i]);
    for (size_t k = 0; k < o->blob.size; k++) text_addf(&f, "%s0x%02x,", k % 12 ? " " : "\n    ", o->blob.data[k]);
    text_addf(&f, "%s};\nstatic const size_t %s_size = %zu;\n", o->blob.size ? "\n" : "0\n", names[i], o->blob.size);
    c_kernels(&f, g, r, i, names[i]);
    c_params(&f, g, r, i, names[i]);
  }
  text_addf(&f, "\n#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n#endif\n");
  free(names);
  if (f.oom) {
    free(f.s);
    return fail("%s", "out of memory");
  }
  *b = (gpublob_blob){(unsigned char *)f.s, f.len, ".h"};
  return 0;
}

