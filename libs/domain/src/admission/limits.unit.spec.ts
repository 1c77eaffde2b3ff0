/**
 * Admission limits: no record, however much it asks for, is admitted past the cluster's
 * limits — not by the API, not on the log — so no component's memory goes with it.
 */
import { DEFAULT_ADMISSION_LIMITS, DEFAULT_CLUSTER_SPEC, LOG_LEVEL, RULE_LEVELS } from '@shoal/contracts';
import type { AdmissionLimits, ServiceSpec } from '@shoal/contracts';
import { EventBuilder, clusterInit, given, nodeDescription, serviceSpec, specification, keptJoinTokens } from '@shoal/testing';
import { OrchestratorCore } from '../orchestrator';
import { admissionLimits, tasksAskedFor } from './limits';
import { admitServiceSpec } from './service-admission';
import type { AdmissionStage } from './service-admission';

describe('admission limits', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder('c1')));
  const limited = (limits: Partial<AdmissionLimits>) => b.event('ClusterSpecUpdated', { spec: { ...DEFAULT_CLUSTER_SPEC, limits } });
  const create = (id: string, spec: ServiceSpec) => b.event('ServiceCreated', { id, spec });
  const replicas = (n: number, name = 'web') => serviceSpec(name, { kind: 'replicated', replicas: n });
  const node = (id: string) => b.event('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) });
  /** A cluster as this build initializes one: at its log level, where evolve holds records to the limits too. */
  const cluster = () => b.event('ClusterInitialized', { spec: DEFAULT_CLUSTER_SPEC, tokens: keptJoinTokens({ worker: 'w', manager: 'm' }), logLevel: LOG_LEVEL });

  it('hold records on the log to them only from their log level: a log from before keeps its meaning', () => {
    expect(LOG_LEVEL).toBeGreaterThanOrEqual(RULE_LEVELS.admissionLimitsOnTheLog);
    // A cluster made before levels (level 1), as every earlier build ruled: the record applies…
    given(clusterInit(b)).when(create('s1', replicas(1_000_000_000))).thenApplied();
    // …while the API, asked first, refuses it at any level.
    const { state } = given(clusterInit(b));
    expect(admitServiceSpec(state, { id: 's1', spec: replicas(1_000_000_000), by: 'api' }, 'intent')?.code).toBe('over-limit');
    // Raised to the limits' level, the log refuses it too.
    given(clusterInit(b), b.event('LogLevelRaised', { level: RULE_LEVELS.admissionLimitsOnTheLog }))
      .when(create('s1', replicas(1_000_000_000)))
      .thenRejected(/^replicas 1000000000 is over the cluster's limit of 100000/);
  });

  it('are the defaults where the cluster sets none, each field its own', () => {
    expect(admissionLimits(DEFAULT_CLUSTER_SPEC)).toEqual(DEFAULT_ADMISSION_LIMITS);
    expect(admissionLimits({ ...DEFAULT_CLUSTER_SPEC, limits: { maxServices: 3 } })).toEqual({ ...DEFAULT_ADMISSION_LIMITS, maxServices: 3 });
    expect(DEFAULT_ADMISSION_LIMITS.maxTasks).toBeGreaterThanOrEqual(1_000 * 1_000);
  });

  it('refuse a billion replicas on the log, with nothing created and the state as it was', () => {
    given(cluster())
      .when(create('s1', replicas(1_000_000_000)))
      .thenRejected(/^replicas 1000000000 is over the cluster's limit of 100000 \(maxReplicasPerService; GET\/PUT \/shoal\/v1\/cluster\/limits\)$/);
  });

  it('admit replicas up to the limit, and not one more, on a create or an update', () => {
    given(cluster(), limited({ maxReplicasPerService: 3 })).when(create('s1', replicas(3))).thenApplied();
    given(cluster(), limited({ maxReplicasPerService: 3 })).when(create('s1', replicas(4))).then((_, verdict) => {
      expect(verdict.status).toBe('rejected');
      expect(verdict.codes).toEqual(['over-limit']);
    });
    given(cluster(), limited({ maxReplicasPerService: 3 }), create('s1', replicas(3)))
      .when(b.event('ServiceUpdated', { id: 's1', spec: replicas(4) }))
      .thenRejected(/replicas 4 is over the cluster's limit of 3/);
  });

  it('hold a replicated job to the limit by its completions and its concurrency', () => {
    const job = (maxConcurrent: number, totalCompletions: number) => serviceSpec('batch', { kind: 'replicated-job', maxConcurrent, totalCompletions });
    given(cluster(), limited({ maxReplicasPerService: 10 })).when(create('j1', job(2, 10))).thenApplied();
    given(cluster(), limited({ maxReplicasPerService: 10 })).when(create('j1', job(2, 11))).thenRejected(/a job of 11 completions, 2 at once, is over the cluster's limit of 10/);
  });

  it('count every service\'s tasks together, a global service at one a node', () => {
    expect(tasksAskedFor(serviceSpec('g', { kind: 'global' }), 7)).toBe(7);
    const start = [cluster(), limited({ maxTasks: 5 }), node('n1'), node('n2'), create('g', serviceSpec('g', { kind: 'global' })), create('s1', replicas(3, 'a'))];
    given(...start).when(create('s2', replicas(1, 'b'))).thenRejected(/^6 tasks in the cluster is over the cluster's limit of 5 \(maxTasks/);
    // An update counts the service once, at its new size.
    given(...start).when(b.event('ServiceUpdated', { id: 's1', spec: replicas(2, 'a') })).thenApplied();
  });

  it('limit how many services there are', () => {
    given(cluster(), limited({ maxServices: 2 }), create('s1', replicas(1, 'a')), create('s2', replicas(1, 'b')))
      .when(create('s3', replicas(1, 'c')))
      .thenRejected(/^a service beyond 2 is over the cluster's limit of 2 \(maxServices/);
  });

  it('limit a spec\'s size, in bytes of its JSON', () => {
    const big = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { labels: { note: 'é'.repeat(600) } });
    // 600 é are 600 characters but 1,200 bytes: the JSON is 721 characters, 1,321 bytes.
    expect(JSON.stringify(big).length).toBe(721);
    given(cluster(), limited({ maxSpecBytes: 1_000 })).when(create('s1', big)).thenRejected(/^a spec of 1321 bytes is over the cluster's limit of 1000 \(maxSpecBytes/);
    given(cluster(), limited({ maxSpecBytes: 2_000 })).when(create('s1', big)).thenApplied();
  });

  it('let a rollback restore a spec admitted before the limits came down', () => {
    given(cluster(), create('s1', replicas(5)), b.event('ServiceUpdated', { id: 's1', spec: replicas(2) }), limited({ maxReplicasPerService: 3 }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: replicas(5), rollback: true }))
      .thenApplied((state) => expect(state.services.get('s1')?.spec.mode).toEqual({ kind: 'replicated', replicas: 5 }));
  });

  it('hold a create and an update to each limit at both stages alike: at the bound admitted, one past it refused', () => {
    const limits = { maxReplicasPerService: 4, maxTasks: 6, maxServices: 2, maxSpecBytes: 400 };
    const { state } = given(cluster(), limited(limits), create('s1', replicas(2, 'a')));
    const s1 = state.services.get('s1')!;
    const padded = (bytes: number) => {
      const spec = replicas(1, 'b');
      const note = bytes - JSON.stringify({ ...spec, labels: { note: '' } }).length;
      return { ...spec, labels: { note: 'x'.repeat(note) } };
    };
    const cases: readonly [string, ServiceSpec, boolean, RegExp | undefined][] = [
      ['4 replicas', replicas(4, 'b'), false, undefined],
      ['5 replicas', replicas(5, 'b'), false, /^replicas 5 is over the cluster's limit of 4 \(maxReplicasPerService/],
      ['an update to 4 replicas', replicas(4, 'a'), true, undefined],
      ['an update to 5 replicas', replicas(5, 'a'), true, /^replicas 5 is over the cluster's limit of 4/],
      ['4 more tasks (6 in all)', replicas(4, 'b'), false, undefined],
      ['a spec of 400 bytes', padded(400), false, undefined],
      ['a spec of 401 bytes', padded(401), false, /^a spec of 401 bytes is over the cluster's limit of 400 \(maxSpecBytes/],
    ];
    for (const [what, spec, update, refused] of cases) {
      for (const stage of ['intent', 'record'] as const satisfies readonly AdmissionStage[]) {
        const proposal = update ? { id: 's1', spec, current: s1, by: 'api' as const } : { id: 's2', spec, by: 'api' as const };
        const refusal = admitServiceSpec(state, proposal, stage);
        if (refused) expect({ what, stage, refusal }).toEqual({ what, stage, refusal: { code: 'over-limit', reason: expect.stringMatching(refused) } });
        else expect({ what, stage, refusal }).toEqual({ what, stage, refusal: undefined });
      }
    }
    const full = given(cluster(), limited(limits), create('s1', replicas(4, 'a')), create('s2', replicas(2, 'b'))).state;
    for (const stage of ['intent', 'record'] as const) {
      expect(admitServiceSpec(full, { id: 's2', spec: replicas(3, 'b'), current: full.services.get('s2')!, by: 'api' }, stage)).toEqual({
        code: 'over-limit',
        reason: "7 tasks in the cluster is over the cluster's limit of 6 (maxTasks; GET/PUT /shoal/v1/cluster/limits)",
      });
      expect(admitServiceSpec(full, { id: 's3', spec: replicas(0, 'c'), by: 'api' }, stage)).toEqual({
        code: 'over-limit',
        reason: "a service beyond 2 is over the cluster's limit of 2 (maxServices; GET/PUT /shoal/v1/cluster/limits)",
      });
    }
  });

  it('hold back growth only: under limits lowered below what runs, a service is still scaled down and changed', () => {
    const start = [cluster(), create('s1', replicas(5, 'a')), create('s2', replicas(5, 'b')), limited({ maxReplicasPerService: 3, maxTasks: 6 })];
    given(...start).when(b.event('ServiceUpdated', { id: 's1', spec: replicas(4, 'a') })).thenApplied();
    given(...start).when(b.event('ServiceUpdated', { id: 's1', spec: { ...replicas(5, 'a'), labels: { team: 'blue' } } })).thenApplied();
    given(...start).when(b.event('ServiceUpdated', { id: 's1', spec: replicas(6, 'a') })).thenRejected(/^replicas 6 is over the cluster's limit of 3/);
    given(cluster(), create('s1', replicas(2, 'a')), create('s2', replicas(5, 'b')), limited({ maxTasks: 6 }))
      .when(b.event('ServiceUpdated', { id: 's1', spec: replicas(3, 'a') }))
      .thenRejected(/^8 tasks in the cluster is over the cluster's limit of 6 \(maxTasks/);
    const big = { ...replicas(1, 'a'), labels: { note: 'x'.repeat(500) } };
    const smaller = { ...replicas(1, 'a'), labels: { note: 'x'.repeat(450) } };
    given(cluster(), create('s1', big), limited({ maxSpecBytes: 400 })).when(b.event('ServiceUpdated', { id: 's1', spec: smaller })).thenApplied();
    given(cluster(), create('s1', smaller), limited({ maxSpecBytes: 400 })).when(b.event('ServiceUpdated', { id: 's1', spec: big })).thenRejected(/maxSpecBytes/);
  });

  it('admit the scale target with the defaults: 1,000 services of 1,000 replicas, and a global service, on 5,000 nodes', () => {
    const init = cluster();
    const nodes = Array.from({ length: 5_000 }, (_, i) => node(`n${i}`));
    const services = Array.from({ length: 999 }, (_, i) => create(`s${i}`, replicas(1_000, `svc-${i}`)));
    given(init, ...nodes, ...services, create('g', serviceSpec('g', { kind: 'global' })))
      .when(create('last', replicas(1_000, 'last')))
      .thenApplied((state) => expect(state.services.size).toBe(1_001));
  });

  it('leave an orchestrator shown a billion-replica record on the log with no task to make', () => {
    let ids = 0;
    const orchestrator = () => specification({ core: () => new OrchestratorCore({ newId: () => `t${++ids}` }) }).given(cluster(), node('n1'));
    const small = orchestrator();
    small.when(create('s1', replicas(3))).thenApplied();
    expect(small.whenTicked().thenApplied()).toHaveLength(1);
    const huge = orchestrator();
    huge.when(create('s2', replicas(1_000_000_000, 'huge'))).thenRejected(/maxReplicasPerService/);
    huge.whenTicked().thenNothing();
    expect(huge.state.tasks.size).toBe(0);
  });
});
