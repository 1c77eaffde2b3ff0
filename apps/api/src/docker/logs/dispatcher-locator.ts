/**
 * Where the API asks for task output: the active dispatcher. The view tells the locator of
 * every event it applies; the latest applied OwnershipTaken of the dispatcher names the
 * active instance, and its instance name carries its address. The API's view replays the
 * log from its start, so the locator has seen every takeover once the view is caught up.
 * Until a dispatcher with an address has taken over, the API asks at its join address
 * (`SHOAL_JOIN_ADDR`), where the all-in-one process runs its dispatcher.
 */
import type { ShoalEvent } from '@shoal/contracts';
import type { Verdict } from '@shoal/domain';
import { addressOfInstance } from '@shoal/protocol';

export interface ActiveDispatcher {
  readonly instance: string;
  readonly term: number;
  /** Undefined when its instance name carries no address. */
  readonly address?: string;
}

export class DispatcherLocator {
  private active?: ActiveDispatcher;

  constructor(private readonly fallback: string) {}

  /** The view's hook: called with every decoded event and evolve's verdict on it. */
  observe(event: ShoalEvent, verdict: Verdict): void {
    if (verdict.status !== 'applied' || event.type !== 'OwnershipTaken' || event.data.component !== 'dispatcher') return;
    const address = addressOfInstance(event.by.instance);
    this.active = { instance: event.by.instance, term: event.data.term, ...(address ? { address } : {}) };
  }

  /** The instance that took the dispatcher's partition last, if one has. */
  get current(): ActiveDispatcher | undefined {
    return this.active;
  }

  /** Where to dial: the active dispatcher's address, else the join address. */
  address(): string {
    return this.active?.address ?? this.fallback;
  }
}
