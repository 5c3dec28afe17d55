/* src/live.c: Live processes and directories: fixed tables a signal handler may read, so
** gpublob_process_cleanup can kill every tool and remove every private directory. */

/* ---- live processes and directories, for a signal handler to clean up ---- */
GPUBLOB_PRIVATE atomic_int live_pids[MAX_LIVE_PIDS];
GPUBLOB_PRIVATE struct live_dir live_dirs[MAX_LIVE_DIRS];

/* Removes everything under the directory dirfd, without following links; system
** calls only (getdents64, unlinkat), so a signal handler may call it. */
static void remove_entries(int dirfd, int depth) {
  char buf[512]; /* small: this runs on a signal handler's stack, once a level */
  long n;
  while ((n = syscall(SYS_getdents64, dirfd, buf, sizeof buf)) > 0) {
    for (long off = 0; off < n;) {
      struct linux_dirent64 {
        uint64_t ino;
        int64_t off;
        unsigned short reclen;
        unsigned char type;
        char name[];
      } *e = (void *)(buf + off);
      off += e->reclen;
      if (!strcmp(e->name, ".") || !strcmp(e->name, "..")) continue;
      if (!unlinkat(dirfd, e->name, 0) || errno != EISDIR || depth >= MAX_TREE_DEPTH) continue;
      int sub = openat(dirfd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub >= 0) {
        for (int pass = 0; pass < 3 && unlinkat(dirfd, e->name, AT_REMOVEDIR); pass++) {
          lseek(sub, 0, SEEK_SET);
          remove_entries(sub, depth + 1);
        }
        close(sub);
      }
    }
  }
}

/* A few passes: a process still writing into it may add an entry meanwhile. */
GPUBLOB_PRIVATE void live_remove_tree(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  for (int pass = 0; fd >= 0 && pass < 3 && rmdir(dir); pass++) {
    lseek(fd, 0, SEEK_SET);
    remove_entries(fd, 0);
  }
  if (fd >= 0) close(fd);
}

static int is_workdir_name(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash && !strncmp(slash + 1, "gpublob-", 8);
}

void gpublob_process_cleanup(void) {
  int saved = errno;
  for (int i = 0; i < MAX_LIVE_PIDS; i++) {
    int pgid = atomic_load(&live_pids[i]);
    if (pgid > 0) kill(-pgid, SIGKILL);
  }
  for (int i = 0; i < MAX_LIVE_DIRS; i++)
    if (atomic_load(&live_dirs[i].state) == SLOT_READY && is_workdir_name(live_dirs[i].path))
      live_remove_tree(live_dirs[i].path);
  errno = saved;
}
