/**
 * Ownership within one process: per component, the first acquirer holds the lease and
 * the others wait in line (first come, first served); a release hands it to the next in
 * line. Closing ends every lease and turns every waiter away. A lease's members are its
 * holder and the instances in line.
 */
import type { AcquireOptions, OwnershipLease } from '../port';

interface Waiter {
  readonly instance: string;
  readonly grant: (lease: OwnershipLease) => void;
  readonly refuse: (error: Error) => void;
  readonly timer?: NodeJS.Timeout;
}

export class LocalLeases {
  private readonly holders = new Map<string, LocalLease>();
  private readonly queues = new Map<string, Waiter[]>();
  private readonly watchers = new Map<string, Set<(members: readonly string[]) => void>>();
  private readonly told = new Map<string, string>();
  private generation = 0;
  private closedBecause?: string;

  constructor(private readonly partition = 0) {}

  acquire(component: string, instance: string, options: AcquireOptions = {}): Promise<OwnershipLease> {
    if (this.closedBecause) return Promise.reject(new Error(this.closedBecause));
    if (!this.holders.has(component)) return Promise.resolve(this.grant(component, instance));
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(component) ?? [];
      const timer =
        options.timeoutMs === undefined
          ? undefined
          : setTimeout(() => {
              const at = queue.indexOf(waiter);
              if (at >= 0) queue.splice(at, 1);
              this.membersChanged(component);
              reject(new Error(`${instance} was not granted ${component} within ${options.timeoutMs} ms`));
            }, options.timeoutMs);
      const waiter: Waiter = { instance, grant: resolve, refuse: reject, ...(timer ? { timer } : {}) };
      queue.push(waiter);
      this.queues.set(component, queue);
      this.membersChanged(component);
    });
  }

  /** The holder of `component`'s lease and the instances in line for it, sorted. */
  members(component: string): string[] {
    const holder = this.holders.get(component);
    const waiting = (this.queues.get(component) ?? []).map((waiter) => waiter.instance);
    return [...new Set([...(holder ? [holder.instance] : []), ...waiting])].sort();
  }

  onMembers(component: string, listener: (members: readonly string[]) => void): () => void {
    const watching = this.watchers.get(component) ?? new Set();
    watching.add(listener);
    this.watchers.set(component, watching);
    return () => watching.delete(listener);
  }

  private membersChanged(component: string): void {
    const members = this.members(component);
    const key = members.join('\n');
    if (this.told.get(component) === key) return;
    this.told.set(component, key);
    for (const listener of [...(this.watchers.get(component) ?? [])]) listener(members);
  }

  /** Ends every lease and refuses every waiter (the log is closing). */
  close(reason: string): void {
    this.closedBecause = reason;
    for (const queue of this.queues.values()) {
      for (const waiter of queue.splice(0)) {
        if (waiter.timer) clearTimeout(waiter.timer);
        waiter.refuse(new Error(reason));
      }
    }
    for (const lease of [...this.holders.values()]) lease.end(reason);
  }

  private grant(component: string, instance: string): LocalLease {
    const lease = new LocalLease(component, instance, this.partition, ++this.generation, this, (ended) => this.handOver(ended));
    this.holders.set(component, lease);
    this.membersChanged(component);
    return lease;
  }

  private handOver(ended: LocalLease): void {
    if (this.holders.get(ended.component) !== ended) return;
    this.holders.delete(ended.component);
    if (this.closedBecause) return;
    const next = this.queues.get(ended.component)?.shift();
    if (!next) return this.membersChanged(ended.component);
    if (next.timer) clearTimeout(next.timer);
    next.grant(this.grant(ended.component, next.instance));
  }
}

class LocalLease implements OwnershipLease {
  readonly lost: Promise<string>;
  private held = true;
  private markLost!: (reason: string) => void;

  constructor(
    readonly component: string,
    readonly instance: string,
    readonly partition: number,
    readonly generation: number,
    private readonly leases: LocalLeases,
    private readonly onEnd: (lease: LocalLease) => void,
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

  members(): readonly string[] {
    return this.leases.members(this.component);
  }

  onMembers(listener: (members: readonly string[]) => void): () => void {
    return this.leases.onMembers(this.component, listener);
  }
}
