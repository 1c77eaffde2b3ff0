/**
 * A story's postings: for every entity id, the offsets of the records that touched it, in
 * log order, and evolve's verdict on each of those records that was not applied in full.
 * Built by replay (each record decoded, ruled on, then added here), so any process that
 * replays the same log holds the same postings.
 */
import type { ShoalEvent } from '@shoal/contracts';
import type { Verdict } from '@shoal/domain';
import { entityIdsOf } from './entities';

/** A verdict as the index keeps it: only what a story shows. */
export interface StoredVerdict {
  readonly status: Verdict['status'];
  readonly reasons: readonly string[];
  readonly codes: Verdict['codes'];
  readonly refused?: readonly string[];
}

export const storedVerdict = (verdict: Verdict): StoredVerdict => ({
  status: verdict.status,
  reasons: verdict.reasons,
  codes: verdict.codes,
  ...(verdict.refused && verdict.refused.length > 0 ? { refused: verdict.refused } : {}),
});

export class StoryPostings {
  /** id → ascending offsets. */
  readonly offsets = new Map<string, number[]>();
  /** offset → verdict, for the records not applied in full that touch some entity. */
  readonly verdicts = new Map<number, StoredVerdict>();
  /** How many (entity, record) pairs. */
  postings = 0;

  /** Notes a decoded record that evolve ruled on. */
  add(offset: number, event: ShoalEvent, verdict: Verdict): void {
    const ids = entityIdsOf(event);
    if (ids.length === 0) return;
    for (const id of ids) this.addPosting(id, offset);
    if (verdict.status !== 'applied') this.verdicts.set(offset, storedVerdict(verdict));
  }

  addPosting(id: string, offset: number): void {
    const list = this.offsets.get(id);
    if (list) {
      if (list[list.length - 1]! >= offset) return;
      list.push(offset);
    } else this.offsets.set(id, [offset]);
    this.postings++;
  }

  /** The offsets of every record that touched `id`, ascending (empty when none did). */
  touching(id: string): readonly number[] {
    return this.offsets.get(id) ?? [];
  }
}
