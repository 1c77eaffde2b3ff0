import { randomUUID } from 'node:crypto';
import { openEventLog } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { eventually, testBrokers } from '@shoal/testing';
import { EventWriter } from './event-writer';
import { OwnerProcess } from './failover.owner-process';
import { LiveView } from './live-view';
import { takeOwnership } from './ownership';
import type { Ownership } from './ownership';

// The owner in a process of its own, stopped as a machine stops one: killed (it never leaves
// its lease group) or paused. The standby must not wait for Kafka's old 10 s session: it
// takes over once the lease timeout has passed. The bound below leaves the loaded machine
// room (a 2 s lease, so 5 s of slack) and is still well under the 9.5–10 s the standby
// waited with a 10 s session timeout.
const LEASE_MS = 2_000;
const TAKEOVER_BOUND_MS = 7_000;
const STANDBY = 'reaper-standby';

describe('failover from an owner in another process', () => {
  const brokers = testBrokers();
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step().catch(() => undefined);
  });

  const freshEnv = () => ({ ...process.env, KAFKA_BROKERS: brokers.join(','), SHOAL_TOPIC_PREFIX: `shoal-test-${randomUUID()}`, SHOAL_LEASE_TIMEOUT_MS: String(LEASE_MS) });

  /** An owner process and a standby here, on a fresh topic; the standby is in line once this resolves. */
  const ownerAndStandby = async () => {
    const env = freshEnv();
    const owner = OwnerProcess.start(env);
    cleanup.push(() => owner.stop());
    const took = await eventually('the owner process takes the reaper', () => owner.last('owner') ?? (owner.exited ? owner.messages : undefined), 90_000);
    // What SHOAL_LEASE_TIMEOUT_MS asked for is what the owner's group member joined with.
    expect(took).toEqual({ kind: 'owner', term: 1, sessionTimeout: LEASE_MS, heartbeatInterval: LEASE_MS / 5 });

    const log: EventLog = await openEventLog(env, 'failover-standby');
    cleanup.push(() => log.close());
    const view = new LiveView(log);
    await view.start();
    cleanup.push(() => view.stop());
    const writer = new EventWriter(log, 'c1', 'reaper', STANDBY);
    let taken: { readonly at: number; readonly ownership: Ownership } | undefined;
    const standing = takeOwnership(log, view, writer, { timeoutMs: 120_000 }).then((ownership) => {
      taken = { at: Date.now(), ownership };
      return taken;
    });
    await eventually('the standby is in line for the lease', () => owner.last('members')?.members.includes(STANDBY), 60_000);
    expect(taken).toBeUndefined();
    return { owner, view, writer, standing };
  };

  it('hands the component to the standby within the lease timeout of the owner being killed (SIGKILL)', async () => {
    const { owner, standing } = await ownerAndStandby();
    const killedAt = Date.now();
    owner.signal('SIGKILL');
    const { at, ownership } = await standing;
    cleanup.push(() => ownership.lease.release());
    expect(ownership.term).toBe(2);
    expect(at - killedAt).toBeLessThan(TAKEOVER_BOUND_MS);
    expect(ownership.lease.isHeld()).toBe(true);
  });

  it('hands the component over when the owner is paused past its lease, and fences what it appends on waking', async () => {
    const { owner, view, writer, standing } = await ownerAndStandby();
    const pausedAt = Date.now();
    owner.signal('SIGSTOP');
    const { at, ownership } = await standing;
    cleanup.push(() => ownership.lease.release());
    expect(ownership.term).toBe(2);
    expect(at - pausedAt).toBeLessThan(TAKEOVER_BOUND_MS);

    // Woken, the old owner still stamps term 1: the log takes its record, evolve refuses it everywhere.
    owner.signal('SIGCONT');
    owner.append();
    const late = await eventually('the woken owner hears its verdict', () => owner.last('verdict') ?? owner.last('error'), 60_000);
    expect(late).toEqual({ kind: 'verdict', status: 'rejected', reasons: ['stale writer: reaper term 1 was superseded by term 2'] });
    // It learns it lost the lease; the standby holds it still, and its own writes apply.
    const lost = await eventually('the woken owner hears its lease is gone', () => owner.last('lost'), 60_000);
    expect(lost.reason).toMatch(/session expired|assigned to another member/);
    expect(ownership.lease.isHeld()).toBe(true);
    const [mine] = await writer.appendAndWait(view, [writer.propose('TasksRemoved', { tasks: [] })]);
    expect(mine).toMatchObject({ status: 'applied' });
    expect(view.state.terms.get('reaper')).toBe(2);
    expect(view.projection.refusals.flatMap((refusal) => refusal.reasons)).toEqual(['stale writer: reaper term 1 was superseded by term 2']);
  });

  it("keeps the lease of an owner whose main thread is busy for longer than the lease timeout: its group member heartbeats on a thread of its own", async () => {
    const env = freshEnv();
    const log = await openEventLog(env, 'failover-busy-owner');
    cleanup.push(() => log.close());
    const held = await log.acquire('reaper', 'reaper-busy', { timeoutMs: 60_000 });
    cleanup.push(() => held.release());
    // A standby in another process, in line for the same lease.
    const standby = OwnerProcess.start(env);
    cleanup.push(() => standby.stop());
    await eventually('the standby process is in line', () => held.members().includes('reaper-owner'), 90_000);

    // A tick that keeps this thread from its event loop for three lease timeouts.
    const busyUntil = Date.now() + 3 * LEASE_MS;
    while (Date.now() < busyUntil) {
      // busy
    }
    // Whatever the standby would have said meanwhile has had time to arrive.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS));
    expect(standby.last('owner')).toBeUndefined();
    expect(held.isHeld()).toBe(true);
  });
});
