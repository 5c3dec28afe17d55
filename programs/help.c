/* programs/help.c: --help and --help-all, both made of options.h's table, so a
** flag is written down once.  --help is two screens, a flag a line, in the groups
** a newcomer looks for; --help-all has every flag, with the details, in
** docs/cli.md's groups.  A line is the flag (its letter and --name, or the
** table's own left column) and its value's name, padded to the text's column;
** a left column too wide for it has the text two blanks after it, or on the
** next line where that would pass 80 columns. */
#include "programs/cli.h"
#include "programs/options.h"

#include <stdio.h>
#include <string.h>

static const cli_option_row rows[] = {CLI_OPTIONS(CLI_OPTION_ROW)};

static const char brief_usage[] =
    "usage: gpublob [options] INPUT... INPUT: LLVM IR or MLIR (text, binary); - stdin\n";
static const char full_usage[] =
    "usage: gpublob [options] INPUT...  INPUT: LLVM IR or MLIR, text or binary, by\n"
    "                                   its content; - for stdin; several: one call,\n"
    "                                   each for the -t its triple allows (-f offload:\n"
    "                                   one container)\n";
static const char *const brief_groups[] = {"Inputs", "Targets", "Outputs", "Cache", "Tools", "Robustness",
                                           "Information"};
static const char *const full_groups[] = {"Targets", "Output", "Compile", "Tools and libraries", "Cache",
                                          "MLIR input", "Kernel reports and limits", "Information"};

/* One flag's lines: help is "LEFT\tTEXT" (options.h), the text at column width. */
static void print_row(const cli_option_row *o, const char *help, int width) {
  const char *tab = strchr(help, '\t'), *text = tab ? tab + 1 : "";
  int left_n = tab ? (int)(tab - help) : (int)strlen(help), col;
  if (left_n && help[0] == '-') /* the table's own left column */
    col = printf("%s%.*s", help[1] != '-' ? "  " : "      ", left_n, help);
  else if (o->letter)
    col = printf("  -%c%s%s", o->letter, o->name ? ", --" : "", o->name ? o->name : "");
  else col = printf("      --%s", o->name);
  if (left_n && help[0] != '-') col += printf(" %.*s", left_n, help);
  if (!*text) {
    putchar('\n');
    return;
  }
  size_t first = strcspn(text, "\n");
  if (col + 1 > width) /* two blanks where the line still fits 80 columns, else the next line */
    col = col + 2 + (int)first <= 80 ? width - 2 : printf("\n") - 1;
  for (const char *line = text; line;) {
    const char *nl = strchr(line, '\n');
    printf("%*s%.*s\n", width - col, "", nl ? (int)(nl - line) : (int)strlen(line), line);
    col = 0;
    line = nl ? nl + 1 : NULL;
  }
}

/* The inspect job's line and its flags (programs/inspect.c reads them), in both helps. */
static void print_inspect(void) {
  fputs("       gpublob inspect [--json] [--disasm] FILE...   what a blob file holds\n"
        "Inspect (gpublob inspect):\n"
        "      --json                 each file's kernels as --metadata writes them\n"
        "      --disasm               each entry's machine code (AMD: LLVM's\n"
        "                             disassembler; NVIDIA: nvdisasm or cuobjdump;\n"
        "                             SPIR-V: spirv-dis)\n",
        stdout);
}

/* --help (all = 0): by --help's groups; --help-all: every flag in the table's order. */
void print_help(int all) {
  size_t n = sizeof rows / sizeof *rows;
  fputs(all ? full_usage : brief_usage, stdout);
  if (all) {
    print_inspect();
    for (size_t i = 0; i < n; i++) {
      if (!i || rows[i].group != rows[i - 1].group) printf("%s:\n", full_groups[rows[i].group]);
      if (rows[i].full) print_row(&rows[i], rows[i].full, 35);
    }
    return;
  }
  print_inspect();
  for (int g = B_INPUTS; g < B_NONE; g++) {
    printf("%s:\n", brief_groups[g]);
    for (size_t i = 0; i < n; i++)
      if (rows[i].brief_group == g && rows[i].brief) print_row(&rows[i], rows[i].brief, 28);
  }
}
