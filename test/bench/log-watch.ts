/**
 * Reads what an end-to-end run did from the log itself, as it happens: each task's first
 * assignment and first RUNNING status (times are the records' `at`, the writer's clock on
 * this machine), the schedulers' terms, and how many records and bytes were written.
 * Records are read as written, without evolve's verdicts (a refused record counts too).
 */
import { KafkaEventLog } from '@shoal/eventlog';
import type { LogRecord, Subscription } from '@shoal/eventlog';
import { TaskState } from '@shoal/contracts';

interface Envelope {
  readonly type: string;
  readonly at: string;
  readonly by: { readonly component: string; readonly term: number };
  readonly data: unknown;
}

export interface TermStart {
  readonly term: number;
  /** When OwnershipTaken was written (ms since the epoch). */
  readonly takenAt: number;
  /** When the first TasksAssigned of this term was written, if any yet. */
  firstAssignedAt?: number;
}

/** What the records of a run add up to; `take` each batch in log order. */
export class LogTally {
  records = 0;
  /** Keys and values, UTF-8: the payload of the topic, without Kafka's batch framing. */
  bytes = 0;
  servicesCreated = 0;
  /** Task id → first time it was assigned (ms since the epoch). */
  readonly assigned = new Map<string, number>();
  /** Task id → first time a RUNNING status for it was on the log. */
  readonly running = new Map<string, number>();
  /** Tasks RUNNING now: reported RUNNING, not since reported past it nor told to stop. */
  readonly live = new Set<string>();
  /** reached[k]: when `live` first held k + 1 tasks (ms since the epoch). */
  readonly reached: number[] = [];
  /** Scheduler term → when it started and first placed. */
  readonly schedulerTerms = new Map<number, TermStart>();
  /** OwnershipTaken records per component: more than one means a lease was lost and taken again. */
  readonly ownershipTaken = new Map<string, number>();
  /** Nodes reported down (NodeStatusChanged), e.g. for missed heartbeats. */
  nodesDown = 0;
  /** Records that were not JSON envelopes (none expected). */
  unreadable = 0;

  take(batch: readonly Pick<LogRecord, 'key' | 'value'>[]): void {
    for (const record of batch) {
      this.records += 1;
      this.bytes += Buffer.byteLength(record.key) + Buffer.byteLength(record.value);
      let event: Envelope;
      try {
        event = JSON.parse(record.value) as Envelope;
      } catch {
        this.unreadable += 1;
        continue;
      }
      const at = Date.parse(event.at);
      switch (event.type) {
        case 'ServiceCreated':
          this.servicesCreated += 1;
          break;
        case 'OwnershipTaken': {
          const data = event.data as { component: string; term: number };
          this.ownershipTaken.set(data.component, (this.ownershipTaken.get(data.component) ?? 0) + 1);
          if (data.component === 'scheduler' && !this.schedulerTerms.has(data.term)) this.schedulerTerms.set(data.term, { term: data.term, takenAt: at });
          break;
        }
        case 'TasksAssigned': {
          const data = event.data as { tasks: readonly { id: string }[] };
          for (const task of data.tasks) if (!this.assigned.has(task.id)) this.assigned.set(task.id, at);
          const term = this.schedulerTerms.get(event.by.term);
          if (term && term.firstAssignedAt === undefined && data.tasks.length > 0) term.firstAssignedAt = at;
          break;
        }
        case 'NodeStatusChanged': {
          const data = event.data as { nodes: readonly { state: string }[] };
          this.nodesDown += data.nodes.filter((n) => n.state === 'down').length;
          break;
        }
        case 'TaskStatusesReported': {
          const data = event.data as { statuses: readonly { id: string; state: number }[] };
          for (const status of data.statuses) {
            if (status.state === TaskState.RUNNING) {
              if (!this.running.has(status.id)) this.running.set(status.id, at);
              this.live.add(status.id);
              while (this.reached.length < this.live.size) this.reached.push(at);
            } else if (status.state > TaskState.RUNNING) this.live.delete(status.id);
          }
          break;
        }
        case 'TaskDesiredStatesChanged': {
          const data = event.data as { tasks: readonly { id: string; desiredState: number }[] };
          for (const task of data.tasks) if (task.desiredState > TaskState.RUNNING) this.live.delete(task.id);
          break;
        }
        default:
          break;
      }
    }
  }

}

/** A LogTally kept up to date by following a topic from its start. */
export class LogWatch extends LogTally {
  private subscription?: Subscription;

  private constructor(private readonly log: KafkaEventLog) {
    super();
  }

  static async follow(brokers: readonly string[], topic: string): Promise<LogWatch> {
    const log = await KafkaEventLog.open({ brokers: [...brokers], topic, clientId: 'bench-watch' });
    const watch = new LogWatch(log);
    watch.subscription = log.follow(0, (batch) => watch.take(batch));
    return watch;
  }

  highWaterMark(): Promise<number> {
    return this.log.highWaterMark();
  }

  async close(): Promise<void> {
    await this.subscription?.stop();
    await this.log.close();
  }
}

/** Tasks reaching a moment per second, in `slices` equal slices of [start, end]. */
export const ratesOverTime = (times: readonly number[], start: number, end: number, slices: number): number[] => {
  const width = Math.max(1, (end - start) / slices);
  const counts = new Array<number>(slices).fill(0);
  for (const t of times) counts[Math.min(slices - 1, Math.max(0, Math.floor((t - start) / width)))]! += 1;
  return counts.map((c) => c / (width / 1_000));
};
