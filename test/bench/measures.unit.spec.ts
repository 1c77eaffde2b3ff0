import { cpuSeconds } from './cluster';

describe('what the benchmarks compute from their samples', () => {
  it('reads user + system CPU from /proc/<pid>/stat, whatever the command name holds', () => {
    // pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime …
    const stat = (comm: string): string => `4242 (${comm}) S 1 4242 4242 0 -1 4194560 1200 0 3 0 250 75 0 0 20 0 11 0 100 0 0`;
    expect(cpuSeconds(stat('node'))).toBe(3.25);
    expect(cpuSeconds(stat('a (b) c'))).toBe(3.25);
    expect(cpuSeconds(stat('node'), 1_000)).toBe(0.325);
  });
});
