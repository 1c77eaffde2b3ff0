/**
 * Ownership within one process: per component, the first acquirer holds the lease and
 * the others wait in line; a release hands it to the next in line.
 */
import type { AcquireOptions, OwnershipLease } from '../port';

interface Waiter {
  readonly instance: string;
  readonly grant: (lease: OwnershipLease) => void;
}

export class LocalLeases {
  private readonly holders = new Map<string, Lease>();
  private readonly queues = new Map<string, Waiter[]>();
  private generation = 0;

  constructor(private readonly partition = 0) {}

  acquire(component: string, instance: string, options: AcquireOptions = {}): Promise<OwnershipLease> {
    if (!this.holders.has(component)) return Promise.resolve(this.grant(component, instance));
    return new Promise((resolve, reject) => {
      const waiter: Waiter = { instance, grant: resolve };
      const queue = this.queues.get(component) ?? [];
      queue.push(waiter);
      this.queues.set(component, queue);
      if (options.timeoutMs !== undefined) {
        setTimeout(() => {
          const line = this.queues.get(component) ?? [];
          const at = line.indexOf(waiter);
          if (at < 0) return;
          line.splice(at, 1);
          reject(new Error(`${instance} was not granted ${component} within ${options.timeoutMs} ms`));
        }, options.timeoutMs).unref();
      }
    });
  }

  /** Ends every lease (the log is closing). */
  releaseAll(reason: string): void {
    for (const lease of [...this.holders.values()]) lease.end(reason);
    this.holders.clear();
    this.queues.clear();
  }

  private grant(component: string, instance: string): Lease {
    const lease = new Lease(component, instance, this.partition, ++this.generation, (ended) => this.handOver(component, ended));
    this.holders.set(component, lease);
    return lease;
  }

  private handOver(component: string, ended: Lease): void {
    if (this.holders.get(component) !== ended) return;
    this.holders.delete(component);
    const next = this.queues.get(component)?.shift();
    if (next) next.grant(this.grant(component, next.instance));
  }
}

class Lease implements OwnershipLease {
  readonly lost: Promise<string>;
  private held = true;
  private markLost!: (reason: string) => void;

  constructor(
    readonly component: string,
    readonly instance: string,
    readonly partition: number,
    readonly generation: number,
    private readonly onEnd: (lease: Lease) => void,
  ) {
    this.lost = new Promise((resolve) => (this.markLost = resolve));
  }

  isHeld(): boolean {
    return this.held;
  }

  end(reason: string): void {
    if (!this.held) return;
    this.held = false;
    this.markLost(reason);
    this.onEnd(this);
  }

  async release(): Promise<void> {
    this.end('released');
  }
}
