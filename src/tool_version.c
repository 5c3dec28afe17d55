/* src/tool_version.c: A blob tool too old for the job's ABI version, said when the tool
** fails.  The spec's abi_tool_min (ABI:VERSION) names the tool's major version an ABI
** version needs (amdgcn: ld.lld 19 for code object v6, which older ones refuse as an
** "unknown abi version"), and tool_version the argv that asks the tool (ld.lld
** --version: "Debian LLD 17.0.6").  It is asked only after a failure: a call that
** works spawns nothing more. */

/* The highest tool version abi_tool_min asks for the job's ABI version; 0 for none. */
static long tool_version_needed(const job *j) {
  const char *list = j->t->abi_tool_min, *w;
  size_t n;
  long need = 0;
  while ((w = util_next_word(&list, " ", &n))) {
    unsigned long abi = strtoul(w, NULL, 10);
    const char *colon = memchr(w, ':', n);
    long v = colon ? strtol(colon + 1, NULL, 10) : 0;
    if (colon && j->abi >= abi && v > need) need = v;
  }
  return need;
}

/* The first number of text that starts a word ("LLD 17.0.6" gives 17); -1 for none. */
static long first_version(const char *text) {
  for (const char *p = text; *p; p++)
    if (isdigit((unsigned char)*p) && (p == text || *(p - 1) == ' ')) return strtol(p, NULL, 10);
  return -1;
}

/* The tool's own version, from its output to the spec's tool_version; -1 when unknown. */
static long tool_version_of(job *j) {
  argvec a = {0};
  char **argv = tool_template_argv(&a, j, j->t->tool_version, (const char *[]){"tool", j->tool, NULL}, NULL, NULL);
  proc p;
  strbuf out = {0};
  int status = 0;
  long version = -1;
  if (argv && argv[0] && !proc_spawn(&p, argv, PROC_NONE, NULL, tool_memory_bytes(0))) {
    if (proc_wait(&p, NULL, 0, 10000, &out, &status) == WAIT_EXITED && !status) version = first_version(sb_str(&out));
    proc_end(&p);
  }
  sb_free(&out);
  tool_argv_free(&a);
  return version;
}

/* After the blob tool failed: when the job's ABI version needs a newer tool than this
** one, the error says so. */
GPUBLOB_PRIVATE void tool_version_hint(job *j) {
  long need = tool_version_needed(j);
  if (!need || !*j->t->tool_version || !*j->tool) return;
  long have = tool_version_of(j);
  if (have < 0 || have >= need) return;
  strbuf why = {0};
  sb_addf(&why, "%s is version %ld; ABI version %u needs version %ld or later (choose another with --tool or "
          "--tool-dir, or a lower --abi)", j->tool, have, j->abi, need);
  handle_add_detail(j->g, sb_str(&why));
  sb_free(&why);
}
