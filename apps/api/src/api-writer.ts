/**
 * The API's EventWriter. Many requests write at once; a writer's records must reach the
 * log in the order of their seq (evolve drops a seq lower than one already applied as a
 * duplicate), so appends go out one after the other, in the order they were called.
 * Callers propose and append in the same turn: `appendAndWait(view, [propose(…)])`.
 */
import type { ShoalEvent } from '@shoal/contracts';
import { EventWriter } from '@shoal/runtime';
import type { Appended } from '@shoal/runtime';

export class ApiEventWriter extends EventWriter {
  private queue: Promise<unknown> = Promise.resolve();

  override append(events: readonly ShoalEvent[]): Promise<Appended> {
    const next = this.queue.then(() => super.append(events));
    this.queue = next.catch(() => undefined);
    return next;
  }
}
