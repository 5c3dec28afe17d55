/* src/live_enter.c: A tool's process group and private directory enter the tables of
** live ones (src/live.c) while they exist, for gpublob_process_cleanup. */

/* ---- live processes and directories: entering and leaving the tables ---- */
/* The slot now holding pgid, or -1 when the table is full (that one is then not
** cleaned up on a signal). */
GPUBLOB_PRIVATE int live_enter_pid_add(pid_t pgid) {
  for (int i = 0; i < MAX_LIVE_PIDS; i++) {
    int none = 0;
    if (atomic_compare_exchange_strong(&live_pids[i], &none, (int)pgid)) return i;
  }
  return -1;
}

GPUBLOB_PRIVATE void live_enter_pid_remove(int slot) {
  if (slot >= 0 && slot < MAX_LIVE_PIDS) atomic_store(&live_pids[slot], 0);
}

GPUBLOB_PRIVATE int live_enter_dir_add(const char *path) {
  if (strlen(path) >= LIVE_PATH) return -1;
  for (int i = 0; i < MAX_LIVE_DIRS; i++) {
    int none = SLOT_FREE;
    if (!atomic_compare_exchange_strong(&live_dirs[i].state, &none, SLOT_WRITING)) continue;
    if (!live_dirs[i].path && !(live_dirs[i].path = malloc(LIVE_PATH))) {
      atomic_store(&live_dirs[i].state, SLOT_FREE);
      return -1;
    }
    memcpy(live_dirs[i].path, path, strlen(path) + 1);
    atomic_store(&live_dirs[i].state, SLOT_READY);
    return i;
  }
  return -1;
}

GPUBLOB_PRIVATE void live_enter_dir_remove(int slot) {
  if (slot >= 0 && slot < MAX_LIVE_DIRS) atomic_store(&live_dirs[slot].state, SLOT_FREE);
}
