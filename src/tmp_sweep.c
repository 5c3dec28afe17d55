/* src/tmp_sweep.c: Stale private directories.  A call killed with SIGKILL leaves its
** TMPDIR/gpublob-* directories behind: nothing of it runs to remove them.  So each
** name holds its maker's pid and start time (gpublob-PID-START-XXXXXX, START being
** /proc/PID/stat's field 22), its maker holds an flock on it while it lives (the
** kernel drops it when the maker dies, whatever the signal), and the first directory
** a process makes sweeps, once, those whose maker is gone: only this user's own
** directories (never a link), named exactly so, that this process can lock (no live
** maker holds them: also one in another PID namespace or a process /proc cannot show,
** where a TMPDIR is shared), and whose pid runs no more here or runs a process that
** started at another time (a reused pid).  A process that cannot read its own start
** time (no /proc) sweeps nothing, and a name with START 0 is never removed. */

/* /proc/PID/stat's starttime (clock ticks after boot); 0 when there is no such process. */
static unsigned long long proc_start_time(long pid) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  char *p = strrchr(buf, ')'); /* after the command's name, which may hold anything */
  for (int field = 2; p && field < 22; field++) p = strchr(p + 1, ' ');
  return p ? strtoull(p + 1, NULL, 10) : 0;
}

/* A private directory's name for this process: gpublob-PID-START- (mkdtemp's XXXXXX follow). */
GPUBLOB_PRIVATE void tmp_sweep_workdir_prefix(strbuf *b) {
  long self = (long)getpid();
  sb_addf(b, "gpublob-%ld-%llu-", self, proc_start_time(self));
}

/* name is gpublob-PID-START-XXXXXX exactly; its maker's pid and start time. */
static int stale_name(const char *name, long *pid, unsigned long long *start) {
  char tail[16];
  int used = 0;
  if (sscanf(name, "gpublob-%ld-%llu-%15[A-Za-z0-9]%n", pid, start, tail, &used) != 3 || name[used] ||
      strlen(tail) != 6 || *pid <= 0)
    return 0;
  return 1;
}

static void sweep_dir(const char *tmp) {
  DIR *d = opendir(tmp);
  struct dirent *e;
  uid_t me = geteuid();
  while (d && (e = readdir(d))) {
    long pid;
    unsigned long long start;
    struct stat st;
    if (!stale_name(e->d_name, &pid, &start)) continue;
    if (!start || fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) ||
        st.st_uid != me)
      continue;
    unsigned long long now = proc_start_time(pid);
    if (now && now == start) continue; /* its maker still runs */
    int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) continue;
    if (!flock(fd, LOCK_EX | LOCK_NB)) { /* no live maker holds it */
      strbuf path = {0};
      sb_addf(&path, "%s/%s", tmp, e->d_name);
      if (!path.oom) live_remove_tree(sb_str(&path));
      sb_free(&path);
    }
    close(fd);
  }
  if (d) closedir(d);
}

/* Once a process, at its first private directory: the stale ones in tmp go. */
GPUBLOB_PRIVATE void tmp_sweep_stale_dirs(const char *tmp) {
  static atomic_int swept_by; /* the pid that swept: a forked child sweeps again */
  int self = (int)getpid();
  if (atomic_exchange(&swept_by, self) != self && proc_start_time(self)) sweep_dir(tmp);
}

/* The directory just made, locked while its maker lives: the sweep skips it. */
GPUBLOB_PRIVATE void tmp_sweep_workdir_lock(workdir *w) {
  w->lock = open(sb_str(&w->dir), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (w->lock >= 0 && flock(w->lock, LOCK_EX | LOCK_NB)) {
    close(w->lock);
    w->lock = -1;
  }
}
