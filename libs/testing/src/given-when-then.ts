/**
 * Given/when/then for evolve: given these events happened, when this one arrives, then
 * this is the verdict and this is the state. A rejection must change nothing at all.
 */
import { emptyState, evolve, stateHash } from '@shoal/domain';
import type { ClusterState, Verdict } from '@shoal/domain';
import type { ShoalEvent } from '@shoal/contracts';

export interface Then {
  /** The event applied in full; `check` looks at the state afterwards. */
  thenApplied(check?: (state: ClusterState) => void): ClusterState;
  /** Some items of the batch applied; the reasons name the others. */
  thenPartial(reason: RegExp, check?: (state: ClusterState) => void): ClusterState;
  /** Refused, with a reason matching `reason`, and the state hash did not move. */
  thenRejected(reason: RegExp): ClusterState;
  then(check: (state: ClusterState, verdict: Verdict) => void): ClusterState;
}

export const given = (...history: readonly ShoalEvent[]) => ({
  when(event: ShoalEvent): Then {
    const state = emptyState();
    for (const past of history) {
      const verdict = evolve(state, past);
      if (verdict.status !== 'applied') {
        throw new Error(`given: ${past.type} (${past.id}) was ${verdict.status}: ${verdict.reasons.join('; ')}`);
      }
    }
    const before = stateHash(state);
    const verdict = evolve(state, event);
    const expectStatus = (status: Verdict['status']): void => {
      if (verdict.status !== status) {
        throw new Error(`expected ${event.type} to be ${status}, it was ${verdict.status}: ${verdict.reasons.join('; ')}`);
      }
    };
    const expectReason = (reason: RegExp): void => {
      if (!verdict.reasons.some((r) => reason.test(r))) {
        throw new Error(`expected a reason matching ${reason}, got: ${verdict.reasons.join('; ') || '(none)'}`);
      }
    };
    return {
      thenApplied(check) {
        expectStatus('applied');
        check?.(state);
        return state;
      },
      thenPartial(reason, check) {
        expectStatus('partial');
        expectReason(reason);
        check?.(state);
        return state;
      },
      thenRejected(reason) {
        expectStatus('rejected');
        expectReason(reason);
        const after = stateHash(state);
        if (after !== before) throw new Error(`a rejected ${event.type} changed the state (${before} → ${after})`);
        return state;
      },
      then(check) {
        check(state, verdict);
        return state;
      },
    };
  },
});
