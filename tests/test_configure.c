/* test_configure: running ./configure again with the same arguments leaves ninja
** nothing to do.  configure replaces build/config.ninja only when its bytes change,
** and asks a generator of its own (build/specgen is ninja's), so nothing that
** depends on them (the target table, every object and link) is rebuilt.
**
** In a copy of the files configure and the generator read (never this tree's
** build/, whose configure arguments this test cannot know): ./configure, build
** the target table, ./configure again, and `ninja -n` must say "no work to do";
** then a changed argument must rewrite config.ninja (so the check is not blind).
** Not in the sanitized suites: it drives configure and ninja, with nothing of its
** own to instrument (as test_install). */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testlib.h"

/* sh -c "cd DIR && CMD"; the output into *out (may be NULL); the exit status. */
static int in_dir(const char *dir, const char *cmd, char **out) {
  char line[8192];
  snprintf(line, sizeof line, "cd '%s' && %s", dir, cmd);
  const char *argv[] = {"sh", "-c", line, NULL};
  char *text = NULL;
  int rc = exit_code(run(argv, &text));
  if (out) *out = text;
  else free(text);
  return rc;
}

/* The modification time of dir/name in nanoseconds; -1 when it is not there. */
static long long mtime_of(const char *dir, const char *name) {
  char path[4096];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  if (stat(path, &st)) return -1;
  return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

int main(void) {
  const char *dir = tmp_path("tree");
  char cmd[8192];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && cp -R configure build.ninja gpublob.c gpublob.h gen src targets tests examples "
           "bench tools '%s'/", dir, dir);
  char *out = NULL;
  int rc = in_dir(".", cmd, &out);
  check(rc == 0, "copy the tree", "exit %d: %s", rc, shown(out));
  free(out);

  rc = in_dir(dir, "./configure --prefix=/opt/gpublob-configure-test", &out);
  check(rc == 0, "first ./configure", "exit %d: %s", rc, shown(out));
  free(out);
  rc = in_dir(dir, "ninja build/gpublob_targets.def", &out);
  check(rc == 0, "build the target table", "exit %d: %s", rc, shown(out));
  free(out);
  long long config0 = mtime_of(dir, "build/config.ninja"), specgen0 = mtime_of(dir, "build/specgen");

  rc = in_dir(dir, "sleep 1 && ./configure --prefix=/opt/gpublob-configure-test", &out);
  check(rc == 0, "second ./configure", "exit %d: %s", rc, shown(out));
  free(out);
  check(config0 > 0 && mtime_of(dir, "build/config.ninja") == config0, "config.ninja kept",
        "its time changed although its content did not");
  check(specgen0 > 0 && mtime_of(dir, "build/specgen") == specgen0, "specgen kept (ninja builds it; configure uses a copy of its own)",
        "its time changed although it is the same program");
  rc = in_dir(dir, "ninja -n build/gpublob_targets.def", &out);
  check(rc == 0 && contains(out, "no work to do"), "ninja -n after a rerun", "exit %d: %s", rc, shown(out));
  free(out);
  check(mtime_of(dir, "build/specgen-configure") < 0 && mtime_of(dir, "build/config.ninja.tmp") < 0,
        "no temporary file left", "build/specgen-configure or build/config.ninja.tmp is there");

  /* Another argument: config.ninja is rewritten (the comparison sees content). */
  rc = in_dir(dir, "./configure --prefix=/opt/gpublob-configure-other && grep -q configure-other "
                   "build/config.ninja", &out);
  check(rc == 0, "a changed argument rewrites config.ninja", "exit %d: %s", rc, shown(out));
  free(out);
  return report();
}
