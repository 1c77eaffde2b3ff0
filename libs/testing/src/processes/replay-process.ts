/**
 * A second Node process that replays logs: one child (replay-process-main.ts) serves every
 * request of a test file, so a property can compare the hash a log replays to here with
 * the hash another process reaches from the same bytes — another heap, another module
 * instance, nothing shared but the bytes.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Tally } from '@shoal/domain';

const ROOT = join(__dirname, '..', '..', '..', '..');
const REGISTER = join(ROOT, 'bin', 'register.js');

export interface ReplayRequest {
  readonly id: number;
  readonly bytes: Uint8Array;
}

export type ReplayAnswer =
  | { readonly id: number; readonly pid: number; readonly hash: string; readonly position: number; readonly tally: Tally }
  | { readonly id: number; readonly pid: number; readonly error: string };

export class ReplayProcess {
  private readonly waiting = new Map<number, { resolve(answer: ReplayAnswer): void; reject(error: Error): void }>();
  private nextId = 0;
  private exited?: string;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (answer: ReplayAnswer) => {
      this.waiting.get(answer.id)?.resolve(answer);
      this.waiting.delete(answer.id);
    });
    child.on('exit', (code, signal) => {
      this.exited = `the replay process exited (${signal ?? `code ${code}`})`;
      for (const pending of this.waiting.values()) pending.reject(new Error(this.exited));
      this.waiting.clear();
    });
  }

  /** Starts the child (Shoal's sources through swc, as `npm start` runs them). */
  static start(): ReplayProcess {
    const child = fork(join(__dirname, 'replay-process-main.ts'), [], {
      cwd: ROOT,
      execArgv: ['-r', REGISTER],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new ReplayProcess(child);
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends the log's bytes; resolves with what the other process replayed them to. */
  replay(bytes: Uint8Array): Promise<ReplayAnswer> {
    if (this.exited) return Promise.reject(new Error(this.exited));
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, bytes } satisfies ReplayRequest);
    });
  }

  /** Closes the channel; the child exits when it sees it go. */
  async stop(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.disconnect();
    await gone;
  }
}
