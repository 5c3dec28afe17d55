/* src/math_modes.h: the math modes, in one list, the one place their names are
** written: the spec's conditions ({if:ftz:..}) and mlir_flags options (specgen,
** gen/spec_check.c), the core's flag of each (src/template.c), and the CLI's flags
** with their help (programs/options.h).
**
**   X(A, ID, NAME, BRIEF_GROUP, BRIEF, FULL)
**
** A is what the user passes through (GPUBLOB_MATH_MODES(X, A)): programs/options.h
** passes its own X.  ID names the API's flag, GPUBLOB_FLAG_##ID, and the CLI's
** option, OPTION_##ID; rows of one flag (FTZ, DAZ: one bit) come together, the
** first naming it in messages.  NAME is the mode's name in the spec and the CLI's
** --NAME.  BRIEF_GROUP, BRIEF and FULL are the CLI's help columns (programs/options.h
** says what they are).  FAST_MATH stands for all the others.  The CLI lists the
** flags in this order, and specgen's messages the names.
**
** This file is C: no header, nothing but the list. */
#ifndef GPUBLOB_MATH_MODES_H
#define GPUBLOB_MATH_MODES_H

#define GPUBLOB_MATH_MODES(X, A)                                                                 \
  X(A, FTZ, "ftz", B_NONE, NULL, "--ftz, --daz\tflush denormals to zero")                        \
  X(A, DAZ, "daz", B_NONE, NULL, NULL)                                                            \
  X(A, FINITE_ONLY, "finite-only", B_NONE, NULL, "\tno NaN or infinity in or out")               \
  X(A, UNSAFE_MATH, "unsafe-math", B_NONE, NULL, "\tresults may lose accuracy")                  \
  X(A, UNSAFE_SQRT, "unsafe-sqrt", B_NONE, NULL, "\tsqrt(float) need not round correctly")       \
  X(A, FAST_MATH, "fast-math", B_TARGETS, "\tand --ftz, --daz, --finite-only, --unsafe-math ...", \
    "\tall four of those (device-library settings)")

#endif /* GPUBLOB_MATH_MODES_H */
