/**
 * The audit trail: the API's own replay of the whole log, kept for the audit surface. It
 * remembers what a view forgets — the verdict on every record that was not applied in
 * full, which records touched each entity, and each record's writer time — and catches up
 * with the log on demand, before each answer.
 */
import { decode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection, applied } from '@shoal/domain';
import type { Verdict } from '@shoal/domain';
import type { EventLog } from '@shoal/eventlog';
import { entityIdsOf } from './entities';

const CHUNK = 5_000;

export class AuditTrail {
  private readonly projection = new Projection(undefined, 0, { keepRefusals: 0 });
  /** offset → verdict, for every record that was not applied in full. */
  private readonly refused = new Map<number, Verdict>();
  /** entity id → the offsets of the records that touched it, ascending. */
  private readonly touched = new Map<string, number[]>();
  /** [offset, writer time in ms] of every decodable record, in log order. */
  private readonly times: (readonly [number, number])[] = [];
  private catching: Promise<number> = Promise.resolve(0);

  constructor(private readonly log: EventLog) {}

  /** The next offset the trail will read. */
  get position(): number {
    return this.projection.position;
  }

  /** Reads up to the log's current high-water mark; resolves with it. Calls are serialized. */
  catchUp(): Promise<number> {
    this.catching = this.catching.catch(() => 0).then(() => this.readToEnd());
    return this.catching;
  }

  /** The verdict on the record at `offset` (which the trail must have read). */
  verdictAt(offset: number): Verdict {
    return this.refused.get(offset) ?? applied('');
  }

  /** The offsets of every record not applied in full (partial, rejected, poison), ascending. */
  refusedOffsets(): number[] {
    return [...this.refused.keys()];
  }

  /** The offsets of every record that touched entity `id`, ascending. */
  offsetsTouching(id: string): readonly number[] {
    return this.touched.get(id) ?? [];
  }

  /**
   * The position the state had at `time`: the first record whose writer time is after it
   * (writers' clocks may disagree, so this is the log's prefix written by then).
   */
  positionAt(time: number): number {
    for (const [offset, at] of this.times) if (at > time) return offset;
    return this.projection.position;
  }

  private async readToEnd(): Promise<number> {
    const end = await this.log.highWaterMark();
    while (this.projection.position < end) {
      const batch = await this.log.read(this.projection.position, { to: end, max: CHUNK });
      if (batch.length === 0) break;
      for (const record of batch) {
        if (record.offset < this.projection.position) continue;
        const decoded = decode(record.value);
        const verdict = this.projection.applyDecoded(record.offset, decoded);
        if (!verdict) return this.projection.position; // halted: a record a newer build wrote; the trail ends before it
        if (verdict.status !== 'applied') this.refused.set(record.offset, verdict);
        if (decoded.ok) this.index(record.offset, decoded.event);
      }
      this.projection.position = Math.max(this.projection.position, batch[batch.length - 1]!.offset + 1);
    }
    return end;
  }

  private index(offset: number, event: ShoalEvent): void {
    for (const id of entityIdsOf(event)) {
      const list = this.touched.get(id);
      if (list) list.push(offset);
      else this.touched.set(id, [offset]);
    }
    const at = Date.parse(event.at);
    if (Number.isFinite(at)) this.times.push([offset, at]);
  }
}
