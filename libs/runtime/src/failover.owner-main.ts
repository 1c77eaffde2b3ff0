/**
 * An owner in a process of its own, for failover.killed-owner.int.spec.ts (failover.owner-process.ts
 * starts it): it opens the log its environment names (openEventLog: KAFKA_BROKERS,
 * SHOAL_TOPIC_PREFIX, SHOAL_LEASE_TIMEOUT_MS), takes the reaper of cluster c1, and tells
 * its parent, over the IPC channel, the term it took and the timing its lease's group
 * member joined with; then who is in line for the lease, and when the lease is lost. Asked
 * to `append`, it appends one record under the term it took, whether or not it still
 * holds the lease (as an owner that has not yet heard it lost it would), and answers with
 * the verdict. Run as `node -r ./bin/register.js` through child_process.fork.
 */
import { openEventLog } from '@shoal/eventlog';
import { EventWriter } from './event-writer';
import { LiveView } from './live-view';
import { takeOwnership } from './ownership';
import type { OwnerMessage, OwnerRequest } from './failover.owner-process';

const send = (message: OwnerMessage): void => {
  process.send?.(message);
};

const main = async (): Promise<void> => {
  const log = await openEventLog(process.env, 'failover-owner');
  const view = new LiveView(log);
  await view.start();
  const writer = new EventWriter(log, 'c1', 'reaper', 'reaper-owner');
  const { lease, term } = await takeOwnership(log, view, writer, { timeoutMs: 60_000 });
  const timing = (lease as { readonly timing?: { readonly sessionTimeout: number; readonly heartbeatInterval: number } }).timing;
  send({ kind: 'owner', term, ...(timing ? { sessionTimeout: timing.sessionTimeout, heartbeatInterval: timing.heartbeatInterval } : {}) });
  lease.onMembers((members) => send({ kind: 'members', members }));
  send({ kind: 'members', members: lease.members() });
  void lease.lost.then((reason) => send({ kind: 'lost', reason }));
  process.on('message', (request: OwnerRequest) => {
    if (request.kind !== 'append') return;
    writer
      .appendAndWait(view, [writer.propose('TasksRemoved', { tasks: [] })])
      .then(([verdict]) => send({ kind: 'verdict', status: verdict?.status ?? 'none', reasons: verdict?.reasons ?? [] }))
      .catch((error: unknown) => send({ kind: 'error', message: error instanceof Error ? error.message : String(error) }));
  });
};

process.on('disconnect', () => process.exit(0));
main().catch((error: unknown) => {
  send({ kind: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
