/**
 * Runs Shoal's own entry points as separate processes for end-to-end tests: the
 * all-in-one process and the CLI, from the TypeScript sources, with their output kept.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..', '..');
const REGISTER = join(ROOT, 'bin', 'register.js');

export interface Ran {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `shoal <args>` to completion. */
export const runShoalCli = (args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'bin', 'shoal'), ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`shoal ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });

/** A long-running Shoal process (the all-in-one `npm start`), with its output so far. */
export class ShoalProcess {
  private out = '';

  private constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (this.out += chunk.toString()));
  }

  static start(env: NodeJS.ProcessEnv): ShoalProcess {
    const child = spawn(process.execPath, ['-r', REGISTER, join(ROOT, 'apps', 'shoal', 'src', 'main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new ShoalProcess(child);
  }

  /**
   * `shoal <args>` as a long-running process: `run reaper`, `agent --simulate 3`, … In the
   * network namespace `netns` when given (`ip netns exec` execs node there: the pid stays node's).
   */
  static cli(args: readonly string[], env: NodeJS.ProcessEnv, netns?: string): ShoalProcess {
    const command = [process.execPath, join(ROOT, 'bin', 'shoal'), ...args];
    const [file, ...rest] = netns ? ['ip', 'netns', 'exec', netns, ...command] : command;
    const child = spawn(file!, rest, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new ShoalProcess(child);
  }

  /** `node <nodeArgs>` as a long-running process: a compiled entry point, with node's own flags first. */
  static node(nodeArgs: readonly string[], env: NodeJS.ProcessEnv): ShoalProcess {
    const child = spawn(process.execPath, [...nodeArgs], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    return new ShoalProcess(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get exitCode(): number | null {
    return this.child.exitCode;
  }

  /** Neither exited nor killed yet. */
  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Kills it without a chance to clean up (a crash), and waits until it is gone. */
  crash(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('exit', () => resolve());
      this.child.kill('SIGKILL');
    });
  }

  get output(): string {
    return this.out;
  }

  /** Waits until the output matches `pattern`; fails early if the process exits. */
  async waitFor(pattern: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.out.match(pattern);
      if (match) return match;
      if (this.child.exitCode !== null) throw new Error(`shoal exited with ${this.child.exitCode} before printing ${pattern}:\n${this.out}`);
      if (Date.now() > deadline) throw new Error(`shoal did not print ${pattern} in ${timeoutMs} ms:\n${this.out}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** SIGTERM, and the exit code once it has stopped. */
  stop(timeoutMs = 30_000): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
      this.child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
      this.child.kill('SIGTERM');
    });
  }
}
