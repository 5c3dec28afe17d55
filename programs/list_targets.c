/* programs/list_targets.c: --list-targets (gpublob-compiler's alone): each target
** of the spec with its triple, default chip, formats and attributes, its valid
** chips wrapped to 80 columns, the blob tool a compile would use in each tool mode,
** and its default chip's device libraries, each found or why not. */
#include "programs/cli.h"

#include <stdio.h>
#include <string.h>

static void print_tool(gpublob *g, const cli *c, const char *target, int mode, const char *label) {
  gpublob_options o = c->opts;
  o.target = target;
  o.targets = NULL;
  o.ntargets = 0;
  o.tool_mode = mode;
  gpublob_tool_info t;
  int rc = gpublob_tool_info_get(g, &o, 1, &t, sizeof t);
  if (mode == GPUBLOB_TOOL_INPROCESS && c->opts.tool_mode != mode && (rc || strcmp(t.kind, "in-process")))
    return; /* a target without a provider, or none found: the line above says it all */
  if (rc) printf("    %s: not found\n", label);
  else if (!strcmp(t.kind, "none")) printf("    %s: none needed\n", label);
  else printf("    %s: %s (%s)\n", label, t.path, t.kind);
}

/* The valid chips (the spec's chips), wrapped to 80 columns under "  chips:". */
static void print_chips(const char *chips) {
  int col = printf("  chips:");
  for (const char *p = chips; *(p += strspn(p, " "));) {
    int n = (int)strcspn(p, " ");
    if (col > 8 && col + 1 + n > 80) col = printf("\n%8s", "") - 1;
    col += printf(" %.*s", n, p);
    p += n;
  }
  putchar('\n');
}

/* The device libraries of the target's default chip: each found, or why not. */
static void print_libs(gpublob *g, const cli *c, const char *target, const char *chip) {
  gpublob_options o = c->opts;
  o.target = target;
  o.chip = NULL;
  o.targets = NULL;
  o.ntargets = 0;
  const char *paths;
  int rc = gpublob_libs_find(g, &o, &paths);
  printf("  device libraries (%s):%s\n", chip, *paths || rc ? "" : " none");
  for (const char *p = paths; *p;) {
    size_t n = strcspn(p, "\n");
    printf("    found: %.*s\n", (int)n, p);
    p += n + (p[n] == '\n');
  }
  if (rc) printf("    missing: %s\n", gpublob_error_message(g));
}

/* A target: its line, then one section each, indented: its chips, its blob tool
** (in the call's tool mode, and in-process where the spec names a provider).  A section about the device libraries (whether each
** is found, and where) goes after the blob tool's, in the same form. */
int list_targets(gpublob *g, const cli *c) {
  printf("%-8s %-26s %-8s %-21s %-14s %s\n", "target", "triple", "chip", "formats", "attribute",
         "mlir target");
  for (int i = 0; i < gpublob_target_count(); i++) {
    gpublob_target_info t;
    gpublob_target_get(i, &t, sizeof t);
    gpublob_options o = c->opts;
    o.target = t.name;
    o.format = GPUBLOB_FORMAT_FATBIN;
    o.targets = NULL;
    o.ntargets = 0;
    gpublob_tool_info probe;
    int fatbin = gpublob_tool_info_get(g, &o, 1, &probe, sizeof probe) != GPUBLOB_FORMAT;
    char mlir[64];
    snprintf(mlir, sizeof mlir, "%s%s", *t.mlir_target ? "#" : "", *t.mlir_target ? t.mlir_target : "-");
    printf("%-8s %-26s %-8s %-21s %-14s %s\n", t.name, t.triple, t.chip,
           fatbin ? "llvm,ll,asm,bin,pack" : "llvm,ll,asm,bin", t.attribute, mlir);
    print_chips(t.chips);
    printf("  blob tool (%s):\n", t.tool_kind);
    print_tool(g, c, t.name, c->opts.tool_mode, "this call's mode");
    if (c->opts.tool_mode != GPUBLOB_TOOL_INPROCESS) print_tool(g, c, t.name, GPUBLOB_TOOL_INPROCESS, "in-process");
    if (c->opts.tool_mode != GPUBLOB_TOOL_PROGRAM) print_tool(g, c, t.name, GPUBLOB_TOOL_PROGRAM, "program");
    print_libs(g, c, t.name, t.chip);
  }
  return 0;
}

