/** Property: every Shoal ServiceSpec survives the trip through Docker's shape unchanged. */
import fc from 'fast-check';
import { DEFAULT_RESTART_POLICY, DEFAULT_UPDATE_CONFIG, FAILURE_ACTIONS, PORT_PROTOCOLS, RESTART_CONDITIONS, UPDATE_ORDERS } from '@shoal/contracts';
import { canonicalJson } from '@shoal/domain';
import type { ConfigReference, ServiceSpec, UpdateConfig } from '@shoal/contracts';
import { DEFAULT_STOP_GRACE_MS, fromDockerServiceSpec, toDockerServiceSpec } from './service-mapper';

const word = fc.stringMatching(/^[a-z][a-z0-9-]{0,11}$/);
const labels = fc.dictionary(word, fc.string({ maxLength: 8 }), { minKeys: 1, maxKeys: 3 });
const ms = fc.integer({ min: 0, max: 3_600_000 });
const positive = fc.integer({ min: 1, max: 2 ** 40 });

const updateConfig: fc.Arbitrary<UpdateConfig> = fc.record({
  parallelism: fc.integer({ min: 0, max: 10 }),
  delayMs: ms,
  failureAction: fc.constantFrom(...FAILURE_ACTIONS),
  monitorMs: fc.integer({ min: 1, max: 3_600_000 }),
  maxFailureRatio: fc.double({ min: 0, max: 1, noNaN: true }),
  order: fc.constantFrom(...UPDATE_ORDERS),
});

/** Configs as files, each at a target of its own (Docker refuses two at one target). */
const configs: fc.Arbitrary<ConfigReference[]> = fc.uniqueArray(
  fc.record({
    configId: fc.stringMatching(/^[0-9a-z]{25}$/),
    configName: word,
    file: fc.record({ name: word.map((w) => `/etc/${w}`), uid: fc.constantFrom('0', '33', '1000'), gid: fc.constantFrom('0', '33'), mode: fc.integer({ min: 0, max: 0o7777 }) }),
  }),
  { selector: (ref) => ref.file.name, minLength: 1, maxLength: 3 },
);

const spec: fc.Arbitrary<ServiceSpec> = fc.record(
  {
    name: word,
    labels,
    task: fc.record(
      {
        container: fc.record(
          {
            image: fc.constantFrom('nginx:1.27', 'busybox', 'registry.example:5000/team/app:2'),
            command: fc.array(word, { minLength: 1, maxLength: 3 }),
            args: fc.array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 3 }),
            env: fc.array(word.map((key) => `${key.toUpperCase()}=1`), { minLength: 1, maxLength: 3 }),
            labels,
            dir: fc.constant('/srv'),
            user: fc.constant('nobody'),
            hostname: word,
            stopGracePeriodMs: ms,
            configs,
          },
          { requiredKeys: ['image'] },
        ),
        resources: fc.record(
          {
            limits: fc.record({ nanoCpus: positive, memoryBytes: positive }, { requiredKeys: ['memoryBytes'] }),
            reservations: fc.record(
              { nanoCpus: positive, memoryBytes: positive, generic: fc.array(fc.record({ kind: word, discrete: fc.integer({ min: 0, max: 8 }) }), { minLength: 1, maxLength: 2 }) },
              { requiredKeys: ['nanoCpus'] },
            ),
          },
          { requiredKeys: [] },
        ).filter((resources) => Object.keys(resources).length > 0),
        restartPolicy: fc.record({ condition: fc.constantFrom(...RESTART_CONDITIONS), delayMs: ms, maxAttempts: fc.integer({ min: 0, max: 9 }), windowMs: ms }),
        placement: fc.record(
          {
            constraints: fc.array(fc.constantFrom('node.role==worker', 'node.labels.zone!=west', 'engine.labels.disk==ssd'), { minLength: 1, maxLength: 3 }),
            preferences: fc.array(fc.constantFrom('node.labels.zone', 'node.labels.rack').map((spread) => ({ spread })), { minLength: 1, maxLength: 2 }),
            maxReplicas: fc.integer({ min: 1, max: 5 }),
          },
          { requiredKeys: ['constraints'] },
        ),
        networks: fc.array(fc.record({ target: word, aliases: fc.array(word, { minLength: 1, maxLength: 2 }) }, { requiredKeys: ['target'] }), { minLength: 1, maxLength: 2 }),
        forceUpdate: fc.integer({ min: 1, max: 9 }),
      },
      { requiredKeys: ['container'] },
    ),
    mode: fc.oneof(
      fc.record({ kind: fc.constant('replicated' as const), replicas: fc.integer({ min: 0, max: 50 }) }),
      fc.constant({ kind: 'global' as const }),
      fc.record({ kind: fc.constant('replicated-job' as const), maxConcurrent: fc.integer({ min: 1, max: 5 }), totalCompletions: fc.integer({ min: 1, max: 9 }) }),
      fc.constant({ kind: 'global-job' as const }),
    ),
    update: updateConfig,
    rollback: updateConfig,
    endpoint: fc.record(
      {
        mode: fc.constantFrom('vip' as const, 'dnsrr' as const),
        ports: fc.array(
          fc.record(
            { name: word, protocol: fc.constantFrom(...PORT_PROTOCOLS), targetPort: fc.integer({ min: 1, max: 65535 }), publishedPort: fc.integer({ min: 1, max: 65535 }), publishMode: fc.constantFrom('ingress' as const, 'host' as const) },
            { requiredKeys: ['protocol', 'targetPort', 'publishMode'] },
          ),
          { minLength: 1, maxLength: 3 },
        ),
      },
      { requiredKeys: ['mode'] },
    ),
  },
  { requiredKeys: ['name', 'task', 'mode'] },
);

/** Shoal stores no defaults (see service-mapper.ts): specs whose values equal them are not generated. */
const storedForm = spec.filter(
  (candidate) =>
    (candidate.task.restartPolicy === undefined || canonicalJson(candidate.task.restartPolicy) !== canonicalJson(DEFAULT_RESTART_POLICY)) &&
    candidate.task.container.stopGracePeriodMs !== DEFAULT_STOP_GRACE_MS &&
    canonicalJson(candidate.update) !== canonicalJson(DEFAULT_UPDATE_CONFIG) &&
    canonicalJson(candidate.rollback) !== canonicalJson(DEFAULT_UPDATE_CONFIG) &&
    canonicalJson(candidate.endpoint) !== canonicalJson({ mode: 'vip' }) &&
    // A dnsrr service cannot publish through the routing mesh: refused at create, as Docker does.
    !(candidate.endpoint?.mode === 'dnsrr' && candidate.endpoint.ports?.some((port) => port.publishMode === 'ingress')),
);

describe('service mapper', () => {
  it('Shoal → Docker → Shoal gives back the same spec', () => {
    fc.assert(
      fc.property(storedForm, (original) => {
        expect(fromDockerServiceSpec(toDockerServiceSpec(original))).toEqual(original);
      }),
      { numRuns: 300 },
    );
  });

  it('and so does the trip through inspect with the defaults inserted (what docker service update reads)', () => {
    fc.assert(
      fc.property(storedForm, (original) => {
        expect(fromDockerServiceSpec(toDockerServiceSpec(original, { insertDefaults: true }))).toEqual(original);
      }),
      { numRuns: 200 },
    );
  });
});
