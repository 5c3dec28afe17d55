/* gen/spec.h: what the parts of specgen share.  specgen turns the target spec
** (targets/targets.spec) into the table gpublob.c includes, in four files:
**
**   gen/spec_read.c   the keys as specgen knows them, the spec read into targets,
**                     errors (die) and the string helpers the others use
**   gen/spec_check.c  the checks of each target, and across targets
**   gen/spec_write.c  the table, the LLVM components, the unused backends' file
**   gen/specgen.c     the program: its arguments and output files; built with
**                     -DSPECGEN_LIBRARY, the calls a fuzzer makes instead
**
** The keys a target may hold are the list of src/spec_keys.h: each key's line
** says its presence, its type (the words of an enum, the placeholders of a
** template), its value's form and what it means, and specgen reads all of it from there. */
#ifndef SPECGEN_SPEC_H
#define SPECGEN_SPEC_H

#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

#include "../src/spec_keys.h"

/* ---- the keys a target section may hold, from src/spec_keys.h ---- */
enum value_kind { V_STRING, V_LIST, V_ENUM, V_CENUM, V_INTEGER };

typedef struct value_type {
  int kind;
  const char *values;       /* ENUM, CENUM: the words a value may be */
  const char *prefix;       /* CENUM: of the C constants */
  long min, max;            /* INTEGER */
  const char *unit;         /* INTEGER: what it counts */
  const char *placeholders; /* TEMPLATE: the {NAME}s it expands; NULL: no template */
} value_type;

typedef struct key_info {
  const char *name;
  int required;
  const char *default_value; /* of a target without the key; NULL: none */
  value_type type;
  enum gpublob_spec_form form; /* what the value must look like beyond its type */
} key_info;

enum {
#define KEY_ENUM(key, presence, type, form, doc) K_##key,
  GPUBLOB_SPEC_KEYS(KEY_ENUM) NKEYS
#undef KEY_ENUM
};

extern const key_info keys[NKEYS];

/* ---- the spec as read ---- */
/* gpublob.c keeps a target's name, a chip and a feature in char[64] buffers,
   and a glob pattern and a versioned feature's minimum in char[128] and char[32]. */
enum { NAME_MAX_LEN = 63, GLOB_MAX_LEN = 127, FEATURE_MIN_MAX_LEN = 31 };

#define MAX_TARGETS 64

typedef struct target {
  char *name;
  int line;
  char *inherit;    /* inherit = NAME: the earlier target it starts as a copy of, or NULL */
  int inherit_line;
  char *val[NKEYS];
  int key_line[NKEYS]; /* where the value is written; an inherited one's: the inherit line */
} target;

extern const char *spec_path;
extern target targets[MAX_TARGETS];
extern int ntargets;
extern const char *built_targets; /* --llvm-targets: blank-separated, or NULL */

/* LLVM 22's targets (gen/spec_check.c says where the list comes from). */
extern const char *const llvm22_targets[];

/* ---- errors: file:line: message, then exit 1; or, where die_jump is set (the
** library), the message in die_message and a longjmp there ---- */
extern jmp_buf *die_jump;
extern char die_message[1024];
_Noreturn void die(int line, const char *fmt, ...);

/* ---- helpers (gen/spec_read.c) ---- */
char *xstrdup(const char *s);
int in_list(const char *const *list, const char *s, size_t n);
const char *next_word(const char **p, size_t *n);
int word_in(const char *list, const char *w, size_t n);
const char *list_text(const char *const *list);
int plain_number(const char *s, size_t n, long max, long *out);
int ident_char(int c, int upper);

/* ---- the steps ---- */
void read_spec(const char *data, size_t size);  /* gen/spec_read.c */
int set_built_targets(const char *list);        /* 0, or -1: a word that is no name */
void spec_reset(void);                          /* frees what read_spec read */
void check_all(void);                           /* gen/spec_check.c */
void write_table(FILE *o);                      /* gen/spec_write.c */
void print_components(FILE *o);
void write_unused_backends(FILE *o);

#endif /* SPECGEN_SPEC_H */
