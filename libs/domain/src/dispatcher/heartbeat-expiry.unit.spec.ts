/**
 * The heartbeat contract, over random fleets: an agent that calls in at the period it was
 * last told (a little early, at random, as agents do; a shorter period taken at once) is
 * never declared DOWN, whatever the rest of the fleet does — nodes joining by the hundred,
 * leaving, going silent — and whatever the cluster's own period becomes.
 */
import { DEFAULT_CLUSTER_SPEC } from '@shoal/contracts';
import fc from 'fast-check';
import { RecordingLink, beat, connect, dispatcherSpecification, nodeDescription } from '@shoal/testing';
import { MAX_HEARTBEATS_PER_SECOND } from './heartbeat';

/**
 * An agent as apps/agent behaves: the next heartbeat within the period it was told; told
 * another, it beats no later than that period from now, and no later than it would have.
 */
class ModelAgent extends RecordingLink {
  periodMs = 0;
  nextBeat = Number.POSITIVE_INFINITY;

  constructor(
    private readonly now: () => number,
    private readonly early: () => number,
  ) {
    super();
  }

  override opened(periodMs: number): void {
    super.opened(periodMs);
    this.periodMs = periodMs;
    this.schedule();
  }

  override periodChanged(periodMs: number): void {
    super.periodChanged(periodMs);
    this.periodMs = periodMs;
    this.nextBeat = Math.min(this.nextBeat, this.due());
  }

  /** Called when it beat: the next one is due. */
  schedule(): void {
    this.nextBeat = this.due();
  }

  private due(): number {
    return this.now() + Math.round(this.periodMs * (1 - 0.2 * this.early()));
  }
}

type Step =
  | { readonly kind: 'join'; readonly nodes: number }
  | { readonly kind: 'leave'; readonly share: number }
  | { readonly kind: 'spec'; readonly periodMs: number }
  | { readonly kind: 'wait'; readonly ms: number };

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('join' as const), nodes: fc.integer({ min: 1, max: 3 * MAX_HEARTBEATS_PER_SECOND }) }),
  fc.record({ kind: fc.constant('leave' as const), share: fc.double({ min: 0, max: 1, noNaN: true }) }),
  fc.record({ kind: fc.constant('spec' as const), periodMs: fc.constantFrom(500, 1_000, 3_000, 5_000) }),
  fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1, max: 20_000 }) }),
);

describe('heartbeat expiry', () => {
  it('never declares DOWN an agent that calls in at the period it was last told, whatever the fleet and the cluster do', () => {
    let shrank = 0;
    fc.assert(
      fc.property(fc.constantFrom(1_000, 5_000), fc.array(step, { minLength: 1, maxLength: 12 }), fc.infiniteStream(fc.double({ min: 0, max: 1, noNaN: true })), (periodMs, steps, jitter) => {
        const h = dispatcherSpecification({ dispatcher: { heartbeatPeriodMs: periodMs } });
        const random = jitter[Symbol.iterator]();
        h.reconcileAll();
        const agent = new ModelAgent(() => h.clock, () => random.next().value as number);
        connect(h, 'a', agent);
        let joined = 0;
        let maxPeriod = 0;
        /** Moves the clock to `until`, beating for `a` when it is due and letting the dispatcher act when it would. */
        const runUntil = (until: number): void => {
          while (h.clock < until) {
            const wake = h.core.wakeAt(h.state) ?? Number.POSITIVE_INFINITY;
            h.clock = Math.min(until, agent.nextBeat, Math.max(h.clock + 1, wake));
            h.tick();
            expect(h.core.sessions.get('a')).toBeDefined();
            if (h.clock >= agent.nextBeat) {
              expect(beat(h, 'a')).toBeDefined();
              agent.schedule();
              maxPeriod = Math.max(maxPeriod, agent.periodMs);
            }
          }
        };
        for (const s of steps) {
          switch (s.kind) {
            case 'join':
              for (let i = 0; i < s.nodes; i++) {
                const nodeId = `n${joined++}`;
                h.core.open(h.state, { nodeId, sessionId: `${nodeId}-session`, role: 'worker', description: nodeDescription(nodeId) }, h.clock);
              }
              h.tick();
              break;
            case 'leave': {
              const others = [...h.core.sessions.all()].map((session) => session.nodeId).filter((id) => id !== 'a');
              for (const nodeId of others.slice(0, Math.floor(others.length * s.share))) h.core.sessions.end(nodeId, 'left');
              break;
            }
            case 'spec':
              h.happen('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, dispatcher: { heartbeatPeriodMs: s.periodMs } } });
              break;
            case 'wait':
              runUntil(h.clock + s.ms);
              break;
          }
          if (agent.periodMs < maxPeriod) shrank += 1;
        }
        runUntil(h.clock + 3 * Math.max(agent.periodMs, periodMs));
        const downs = h.proposed.filter(({ event }) => event.type === 'NodeStatusChanged' && event.data.nodes.some((node) => node.id === 'a'));
        expect(downs).toEqual([]);
      }),
      { numRuns: 150 },
    );
    // Some fleets shrank under the agent: it was told a shorter period than one it had.
    expect(shrank).toBeGreaterThan(0);
  });
});
