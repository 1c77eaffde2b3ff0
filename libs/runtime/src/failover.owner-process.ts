/**
 * An owner of a component in another process (failover.owner-main.ts), for tests that must
 * stop an owner the way a machine does: SIGKILL (it vanishes without leaving its lease
 * group) or SIGSTOP (it pauses, as in a long GC pause or a starved machine, and comes back
 * believing itself the owner). What it says arrives as messages, kept in order.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const REGISTER = join(ROOT, 'bin', 'register.js');

export type OwnerMessage =
  /** It took the component under `term`; its lease's group member joined with this timing. */
  | { readonly kind: 'owner'; readonly term: number; readonly sessionTimeout?: number; readonly heartbeatInterval?: number }
  | { readonly kind: 'members'; readonly members: readonly string[] }
  | { readonly kind: 'lost'; readonly reason: string }
  | { readonly kind: 'verdict'; readonly status: string; readonly reasons: readonly string[] }
  | { readonly kind: 'error'; readonly message: string };

export type OwnerRequest = { readonly kind: 'append' };

export class OwnerProcess {
  readonly messages: OwnerMessage[] = [];
  private exitedValue?: string;

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: OwnerMessage) => this.messages.push(message));
    child.on('exit', (code, signal) => (this.exitedValue = signal ?? `code ${String(code)}`));
  }

  /** Starts the owner with `env` (KAFKA_BROKERS, SHOAL_TOPIC_PREFIX, SHOAL_LEASE_TIMEOUT_MS). */
  static start(env: NodeJS.ProcessEnv): OwnerProcess {
    const child = fork(join(__dirname, 'failover.owner-main.ts'), [], {
      cwd: ROOT,
      env,
      execArgv: ['-r', REGISTER],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    return new OwnerProcess(child);
  }

  /** How it exited (a signal's name, or its code), once it has. */
  get exited(): string | undefined {
    return this.exitedValue;
  }

  /** The latest message of `kind`, if any came. */
  last<K extends OwnerMessage['kind']>(kind: K): Extract<OwnerMessage, { kind: K }> | undefined {
    return this.messages.filter((message): message is Extract<OwnerMessage, { kind: K }> => message.kind === kind).pop();
  }

  append(): void {
    this.child.send({ kind: 'append' } satisfies OwnerRequest);
  }

  signal(signal: 'SIGKILL' | 'SIGSTOP' | 'SIGCONT'): void {
    this.child.kill(signal);
  }

  /** Ends it (woken first, should it be paused), and waits until it has exited. */
  async stop(): Promise<void> {
    if (this.exitedValue !== undefined) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGCONT');
    this.child.kill('SIGKILL');
    await gone;
  }
}
