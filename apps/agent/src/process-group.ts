/** A task's process leads its own process group: signals go to the whole group. */

/** Signals the process group `pid` leads; falls back to the process alone; a process already gone is no error. */
export const signalGroup = (pid: number, signal: NodeJS.Signals): void => {
  try {
    process.kill(-pid, signal);
  } catch {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
};
