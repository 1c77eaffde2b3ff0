/**
 * Taking ownership of a partition for a component: win the lease (the consumer group
 * decides), catch the view up, then append OwnershipTaken with the next term. evolve
 * fences every later record of an older term, so a stale owner cannot act after failover.
 * A lease won but not turned into a term (the log failed, or the term was taken) is given
 * back before this returns: nobody else would ever release it.
 */
import { LOG_LEVEL } from '@shoal/contracts';
import type { Component } from '@shoal/contracts';
import type { EventLog, OwnershipLease } from '@shoal/eventlog';
import type { EventWriter } from './event-writer';
import type { LiveView } from './live-view';

export interface Ownership {
  readonly lease: OwnershipLease;
  readonly term: number;
}

export const takeOwnership = async (
  log: EventLog,
  view: LiveView,
  writer: EventWriter,
  options: { readonly timeoutMs?: number; readonly maxAttempts?: number } = {},
): Promise<Ownership> => {
  const component: Component = writer.component;
  const lease = await log.acquire(component, writer.instance, options.timeoutMs ? { timeoutMs: options.timeoutMs } : {});
  const attempts = options.maxAttempts ?? 5;
  try {
    for (let attempt = 1; attempt <= attempts; attempt++) {
      await view.waitFor(await log.highWaterMark());
      if (!lease.isHeld()) break;
      const term = (view.state.terms.get(component) ?? 0) + 1;
      writer.useTerm(term);
      // The level this build reads, once there are levels above 1 (absent means 1).
      const reads = LOG_LEVEL > 1 ? { reads: LOG_LEVEL } : {};
      const [verdict] = await writer.appendAndWait(view, [writer.propose('OwnershipTaken', { component, term, ...reads })]);
      if (verdict?.status === 'applied') return { lease, term };
      // Someone took a newer term in between (a previous owner's last gasp): look again.
    }
  } catch (error) {
    // The log failed under us (a broker restarting): a lease kept here would be held by
    // nobody, and no standby could ever take the component. Give it back, then say why.
    await lease.release();
    throw error;
  }
  await lease.release();
  throw new Error(`${component}: could not take a term after ${attempts} attempts (lease held: ${lease.isHeld()})`);
};
