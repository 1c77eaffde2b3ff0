/** Whether a process with this pid is still there (signal 0 reaches it), for tests that watch children stop. */
export const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
