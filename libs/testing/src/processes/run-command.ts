/**
 * A command run to its end for an end-to-end test (docker-compose, `docker exec`, a build),
 * from the repository's root, with only the environment it is given.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');

export interface CommandResult {
  /** The exit code; −1 when it could not be run, or was killed at its timeout. */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `command <args>`; resolves with its exit code and output, whatever the code. */
export const runCommand = (command: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs: number): Promise<CommandResult> =>
  new Promise((resolve) => {
    execFile(command, [...args], { env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, cwd: ROOT }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
