/**
 * Docker conformance, side by side: every request here goes to the test run's Docker engine
 * in swarm mode and to Shoal (`shoal run api` on the real broker), at API 1.41, and the
 * answers are compared after the one normaliser (test/conformance/normalise.ts). Where
 * Shoal differs on purpose, the exact difference is pinned here and explained in
 * docs/docker-compatibility.md; a new difference fails the suite.
 */
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { inNameOrder } from '../conformance/normalise';
import { conformanceEngine, ensureSwarm, startShoal } from '../conformance/sides';
import type { ShoalSide } from '../conformance/sides';

const IMAGE = 'shoal-test/busybox:latest';
const run = Date.now().toString(36);

/** Every field of ServiceSpec and the objects in it, as a client may set them. */
const fullSpec = (name: string): Record<string, unknown> => ({
  Name: name,
  Labels: { tier: 'front', 'com.example.team': 'a' },
  TaskTemplate: {
    ContainerSpec: {
      Image: IMAGE,
      Labels: { role: 'web' },
      Command: ['/bin/sh', '-c'],
      Args: ['sleep 1000'],
      Hostname: 'web-{{.Task.Slot}}',
      Env: ['A=1', 'B=two'],
      Dir: '/tmp',
      User: 'nobody',
      Groups: ['audio'],
      Init: true,
      TTY: true,
      OpenStdin: true,
      ReadOnly: true,
      StopSignal: 'SIGUSR1',
      StopGracePeriod: 15_000_000_000,
      Healthcheck: { Test: ['CMD', 'true'], Interval: 2_000_000_000, Timeout: 1_000_000_000, StartPeriod: 3_000_000_000, Retries: 4 },
      Hosts: ['10.0.0.9 db'],
      DNSConfig: { Nameservers: ['10.0.0.2'], Search: ['example.org'], Options: ['ndots:2'] },
      Sysctls: { 'net.core.somaxconn': '1024' },
      CapabilityAdd: ['CAP_NET_ADMIN'],
      CapabilityDrop: ['CAP_MKNOD'],
      Ulimits: [{ Name: 'nofile', Soft: 1024, Hard: 2048 }],
      Mounts: [
        { Type: 'volume', Source: `data-${run}`, Target: '/data', ReadOnly: true, VolumeOptions: { NoCopy: true, Labels: { keep: 'yes' }, DriverConfig: { Name: 'local', Options: { type: 'tmpfs', device: 'tmpfs' } } } },
        { Type: 'tmpfs', Target: '/scratch', TmpfsOptions: { SizeBytes: 1_048_576, Mode: 0o1777 } },
      ],
    },
    Resources: {
      Limits: { NanoCPUs: 500_000_000, MemoryBytes: 134_217_728 },
      Reservations: { NanoCPUs: 250_000_000, MemoryBytes: 67_108_864, GenericResources: [{ DiscreteResourceSpec: { Kind: 'gpu', Value: 1 } }] },
    },
    RestartPolicy: { Condition: 'on-failure', Delay: 3_000_000_000, MaxAttempts: 4, Window: 60_000_000_000 },
    Placement: {
      Constraints: ['node.labels.zone==east', 'node.role==manager'],
      Preferences: [{ Spread: { SpreadDescriptor: 'node.labels.rack' } }],
      MaxReplicas: 2,
      Platforms: [{ Architecture: 'amd64', OS: 'linux' }],
    },
    LogDriver: { Name: 'json-file', Options: { 'max-size': '1m' } },
    ForceUpdate: 3,
  },
  Mode: { Replicated: { Replicas: 0 } },
  UpdateConfig: { Parallelism: 2, Delay: 10_000_000_000, FailureAction: 'rollback', Monitor: 20_000_000_000, MaxFailureRatio: 0.25, Order: 'start-first' },
  RollbackConfig: { Parallelism: 3, Delay: 2_000_000_000, FailureAction: 'continue', Monitor: 7_000_000_000, MaxFailureRatio: 0.5, Order: 'stop-first' },
  EndpointSpec: { Mode: 'vip', Ports: [{ Name: 'http', Protocol: 'tcp', TargetPort: 80, PublishedPort: 30080, PublishMode: 'host' }] },
});

const idOf = (answer: SideBySide): { engine: string; shoal: string } => ({
  engine: (answer.engine.body as { ID: string }).ID,
  shoal: (answer.shoal.body as { ID: string }).ID,
});

describe('Docker Engine API 1.41, Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalSide | undefined;
  let diff: Differential;
  const services: { engine: string; shoal: string }[] = [];
  /** Secrets made by a test (shoal '' when only the engine made one); removed after the services that may use them. */
  const secrets: { engine: string; shoal: string }[] = [];

  beforeAll(async () => {
    const engine = conformanceEngine();
    await ensureSwarm(engine);
    shoal = await startShoal('conformance');
    diff = new Differential(engine, shoal.socket);
  }, 120_000);
  afterAll(async () => {
    for (const ids of services) {
      if (ids.shoal) await diff.sendEach('DELETE', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
      else await diff.engineOnly('DELETE', `/services/${ids.engine}`);
    }
    for (const ids of secrets) {
      await diff.engineOnly('DELETE', `/secrets/${ids.engine}`);
      if (ids.shoal) await diff.shoalOnly('DELETE', `/secrets/${ids.shoal}`);
    }
    await shoal?.close();
  });

  /**
   * Until both sides' inspect of `paths` shows what their allocators give (`allocated` of the
   * body non-empty; at most 10 s): on both, allocation follows the store.
   */
  const untilAllocated = async (paths: { engine: string; shoal: string }, allocated: (body: unknown) => unknown[] | null | undefined): Promise<void> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answers = await diff.sendEach('GET', paths);
      if ((allocated(answers.engine.body) ?? []).length > 0 && (allocated(answers.shoal.body) ?? []).length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`${JSON.stringify(paths)} not allocated on both sides in 10 s`);
  };
  const engineNetworkAllocated = (ids: { engine: string; shoal: string }): Promise<void> =>
    untilAllocated({ engine: `/networks/${ids.engine}`, shoal: `/networks/${ids.shoal}` }, (body) => (body as { IPAM?: { Config?: unknown[] | null } }).IPAM?.Config);
  const engineServiceAllocated = (ids: { engine: string; shoal: string }, part: 'Ports' | 'VirtualIPs'): Promise<void> =>
    untilAllocated({ engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` }, (body) => (body as { Endpoint?: Record<string, unknown[] | undefined> }).Endpoint?.[part]);

  /** Creates the same service on both sides (both must answer 201) and inspects it, once the engine has allocated `allocated`. */
  const createAndInspect = async (spec: unknown, allocated?: 'Ports' | 'VirtualIPs'): Promise<SideBySide> => {
    const created = await diff.send('POST', '/services/create', spec);
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const ids = idOf(created);
    services.push(ids);
    if (allocated) await engineServiceAllocated(ids, allocated);
    return diff.sendEach('GET', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
  };

  it('/_ping answers the same', async () => {
    expect(Differential.compare(await diff.send('GET', '/_ping'))).toEqual({ status: [], body: [] });
  });

  it('a minimal service inspects the same', async () => {
    const inspected = await createAndInspect({ Name: `min-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE } }, Mode: { Replicated: { Replicas: 0 } } });
    expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
  });

  it('a service with every field of ServiceSpec, TaskSpec, ContainerSpec, Resources, RestartPolicy, Placement, LogDriver, UpdateConfig, RollbackConfig and EndpointSpec round-trips as on Docker', async () => {
    const inspected = await createAndInspect(fullSpec(`full-${run}`), 'Ports');
    expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
  });

  it('keys match case-insensitively, null is not set and unknown fields are ignored, as Go decodes them', async () => {
    const lower = {
      name: `lower-${run}`,
      labels: { Mixed: 'Case' },
      taskTemplate: { containerSpec: { image: IMAGE, env: null, NotAField: true } },
      mode: { replicated: { replicas: 0 } },
      updateConfig: null,
      Unknown: { Anything: 1 },
    };
    const inspected = await createAndInspect(lower);
    expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
    expect((inspected.shoal.body as { Spec: { Labels: unknown } }).Spec.Labels).toEqual({ Mixed: 'Case' });
  });

  it('an unknown service answers 404 in the same error shape', async () => {
    const answer = await diff.send('GET', '/services/no-such-service');
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    expect(answer.shoal.status).toBe(404);
  });

  it('a service without an image is refused with 400 in the same error shape', async () => {
    const answer = await diff.send('POST', '/services/create', { Name: `noimage-${run}`, TaskTemplate: { ContainerSpec: {} } });
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    expect(answer.shoal.status).toBe(400);
  });
  it("a service body of the wrong types is refused with 400 in Go's words, the same on both", async () => {
    const image = { ContainerSpec: { Image: IMAGE } };
    const bodies = [
      { Name: 5, TaskTemplate: image },
      { Name: `t-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE, Env: 'A=1' } } },
      { Name: `t-${run}`, Labels: { tier: 3 }, TaskTemplate: image },
      { Name: `t-${run}`, TaskTemplate: image, Mode: { Replicated: { Replicas: -2 } } },
      { Name: `t-${run}`, TaskTemplate: image, Mode: { Replicated: { Replicas: 1.5 } } },
      { Name: `t-${run}`, TaskTemplate: image, EndpointSpec: { Ports: [{ TargetPort: 'x' }] } },
      { Name: `t-${run}`, TaskTemplate: { ...image, RestartPolicy: { Delay: '5s' } } },
      { Name: `t-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE, Mounts: [{ Type: 'bind', ReadOnly: 'yes' }] } } },
      [1],
    ];
    for (const body of bodies) {
      const answer = await diff.send('POST', '/services/create', body);
      expect({ sent: body, ...Differential.compare(answer) }).toEqual({ sent: body, status: [], body: [] });
      expect(answer.shoal.status).toBe(400);
      expect({ sent: body, message: (answer.shoal.body as { message: string }).message }).toEqual({ sent: body, message: (answer.engine.body as { message: string }).message });
    }
  });

  it('a duration that is not a whole number of milliseconds: Docker keeps it, Shoal refuses it naming the field', async () => {
    const spec = { Name: `ns-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE } }, Mode: { Replicated: { Replicas: 0 } }, UpdateConfig: { Delay: 5 } };
    const answer = await diff.send('POST', '/services/create', spec);
    if (answer.engine.status === 201) services.push({ engine: (answer.engine.body as { ID: string }).ID, shoal: '' });
    expect(Differential.compare(answer).status).toEqual(['status: engine 201, shoal 400']);
    expect(answer.shoal.body).toEqual({ message: 'invalid UpdateConfig.Delay: 5ns is not a whole number of milliseconds, the finest duration Shoal keeps' });
  });

  it('a pids limit is kept and inspects as on Docker (a pids limit in Reservations is ignored by both)', async () => {
    const spec = {
      Name: `pids-${run}`,
      TaskTemplate: { ContainerSpec: { Image: IMAGE }, Resources: { Limits: { MemoryBytes: 134_217_728, Pids: 100 }, Reservations: { Pids: 7 } } },
      Mode: { Replicated: { Replicas: 0 } },
    };
    const inspected = await createAndInspect(spec);
    expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
    expect((inspected.shoal.body as { Spec: { TaskTemplate: { Resources: unknown } } }).Spec.TaskTemplate.Resources).toEqual({ Limits: { MemoryBytes: 134_217_728, Pids: 100 }, Reservations: {} });
  });

  it('tasks filtered by a service that does not exist: 404 on both', async () => {
    const answer = await diff.send('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [`none-${run}`] }))}`);
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    expect(answer.shoal.status).toBe(404);
  });

  it('a config (ConfigSpec: name, labels, data) round-trips as on Docker', async () => {
    const spec = { Name: `conf-${run}`, Labels: { app: 'web' }, Data: Buffer.from('listen 80\n').toString('base64') };
    const created = await diff.send('POST', '/configs/create', spec);
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const ids = idOf(created);
    const inspected = await diff.sendEach('GET', { engine: `/configs/${ids.engine}`, shoal: `/configs/${ids.shoal}` });
    expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
    const removed = await diff.sendEach('DELETE', { engine: `/configs/${ids.engine}`, shoal: `/configs/${ids.shoal}` });
    expect(Differential.compare(removed)).toEqual({ status: [], body: [] });
  });

  it('swarm leave without force, and swarm join of a node already in a swarm: the same refusal on both', async () => {
    // Never with force: the engine would leave its swarm.
    const leave = await diff.send('POST', '/swarm/leave');
    expect(Differential.compare(leave)).toEqual({ status: [], body: [] });
    expect(leave.shoal.status).toBe(503);
    const join = await diff.send('POST', '/swarm/join', { RemoteAddrs: ['127.0.0.1:2377'], JoinToken: `SWMTKN-1-${'a'.repeat(50)}-${'b'.repeat(25)}` });
    expect(Differential.compare(join)).toEqual({ status: [], body: [] });
    expect(join.shoal.status).toBe(503);
  });

  it('swarm update: a SwarmSpec with null fields is accepted, and what is set is what inspect returns', async () => {
    const before = await diff.send('GET', '/swarm');
    type Swarm = { Version: { Index: number }; Spec: Record<string, unknown> };
    const engineSwarm = before.engine.body as Swarm;
    const shoalSwarm = before.shoal.body as Swarm;
    const update = (spec: Record<string, unknown>) =>
      diff.sendEach('POST', { engine: `/swarm/update?version=${engineSwarm.Version.Index}`, shoal: `/swarm/update?version=${shoalSwarm.Version.Index}` }, spec);
    const spec = {
      ...engineSwarm.Spec,
      Labels: { site: 'lab' },
      Orchestration: { TaskHistoryRetentionLimit: 7 },
      Dispatcher: { HeartbeatPeriod: 6_000_000_000 },
      Raft: { ...(engineSwarm.Spec.Raft as object), KeepOldSnapshots: null },
    };
    try {
      const updated = await update(spec);
      expect(Differential.compare(updated)).toEqual({ status: [], body: [] });
      expect(updated.shoal.status).toBe(200);
      const after = await diff.send('GET', '/swarm');
      // Docker 20.10 shows the default address pool as null; Shoal names the pool it uses.
      expect(Differential.compare(after)).toEqual({ status: [], body: ['DefaultAddrPool: engine null, shoal ["10.0.0.0/8"]'] });
    } finally {
      const current = await diff.send('GET', '/swarm');
      const versions = { engine: (current.engine.body as Swarm).Version.Index, shoal: (current.shoal.body as Swarm).Version.Index };
      await diff.engineOnly('POST', `/swarm/update?version=${versions.engine}`, engineSwarm.Spec);
      await diff.shoalOnly('POST', `/swarm/update?version=${versions.shoal}`, shoalSwarm.Spec);
    }
  });
  it("/info: the Swarm section matches (the node count included), but for the engine's own listen address and address pool", async () => {
    const answer = await diff.send('GET', '/info');
    const swarmOf = (body: unknown): unknown => (body as { Swarm: unknown }).Swarm;
    const swarm = Differential.compare({ engine: { ...answer.engine, body: swarmOf(answer.engine.body) }, shoal: { ...answer.shoal, body: swarmOf(answer.shoal.body) } });
    expect(swarm.status).toEqual([]);
    expect(swarm.body.map((line) => line.split(':')[0])).toEqual(['Cluster.DefaultAddrPool', 'RemoteManagers[0].Addr']);
  });

  it("/nodes lists the manager the client talks to (/info's NodeID), the leader, of the same shape; inspect, every filter, removing and demoting it answer alike", async () => {
    type Listed = { ID: string; Description: { Hostname: string }; ManagerStatus?: { Leader: boolean } }[];
    const info = await diff.send('GET', '/info');
    const self = {
      engine: (info.engine.body as { Swarm: { NodeID: string; Managers: number } }).Swarm,
      shoal: (info.shoal.body as { Swarm: { NodeID: string } }).Swarm,
    };
    // Pinned, each explained in docs/docker-compatibility.md (/nodes): Shoal's control plane is
    // never scheduled on (drained) and offers no resources; it runs no engine with plugins;
    // ManagerStatus.Addr is each side's listen address.
    const pinned = (at: string) => [
      `${at}Description.Engine.Plugins: engine "<machine>", shoal absent`,
      `${at}Description.Resources.MemoryBytes: engine "<machine>", shoal absent`,
      `${at}Description.Resources.NanoCPUs: engine "<machine>", shoal absent`,
      expect.stringMatching(new RegExp(`^${at.replace(/[[\].]/g, '\\$&')}ManagerStatus\\.Addr: engine "[\\d.]+:\\d+", shoal "127\\.0\\.0\\.1:2377"$`)),
      `${at}Spec.Availability: engine "active", shoal "drain"`,
    ];
    const listed = await diff.send('GET', '/nodes');
    expect(Differential.compare(listed)).toEqual({ status: [], body: pinned('[0].') });
    for (const side of ['engine', 'shoal'] as const) {
      expect((listed[side].body as Listed).map((node) => [node.ID, node.ManagerStatus?.Leader])).toEqual([[self[side].NodeID, true]]);
    }
    const inspected = await diff.sendEach('GET', { engine: `/nodes/${self.engine.NodeID}`, shoal: `/nodes/${self.shoal.NodeID}` });
    expect(Differential.compare(inspected)).toEqual({ status: [], body: pinned('') });

    const hostnames = { engine: (listed.engine.body as Listed)[0]!.Description.Hostname, shoal: (listed.shoal.body as Listed)[0]!.Description.Hostname };
    const filtered = (side: 'engine' | 'shoal', value: object): string =>
      `/nodes?filters=${encodeURIComponent(JSON.stringify(value).replace('<self>', self[side].NodeID.slice(0, 6)).replace('<host>', hostnames[side]))}`;
    const filters: [object, number][] = [
      [{ role: ['manager'] }, 1],
      [{ role: ['worker'] }, 0],
      [{ membership: ['accepted'] }, 1],
      [{ membership: ['pending'] }, 0],
      [{ id: ['<self>'] }, 1],
      [{ name: ['<host>'] }, 1],
      [{ 'node.label': ['zone'] }, 0],
      [{ label: ['zone'] }, 0],
    ];
    for (const [value, count] of filters) {
      const answer = await diff.sendEach('GET', { engine: filtered('engine', value), shoal: filtered('shoal', value) });
      const counts = [(answer.engine.body as Listed).length, (answer.shoal.body as Listed).length];
      expect({ filter: value, counts }).toEqual({ filter: value, counts: [count, count] });
    }

    // What SwarmKit refuses its lone leader: removal (forced or not), and a demotion. The
    // demotion is sent only to a lone manager, which refuses it: another would accept it.
    expect(self.engine.Managers).toBe(1);
    const words = (side: 'engine' | 'shoal', answer: SideBySide): string => (answer[side].body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '').replace(self[side].NodeID, '<self>');
    for (const query of ['', '?force=true']) {
      const removed = await diff.sendEach('DELETE', { engine: `/nodes/${self.engine.NodeID}${query}`, shoal: `/nodes/${self.shoal.NodeID}${query}` });
      expect(Differential.compare(removed)).toEqual({ status: [], body: [] });
      expect(removed.shoal.status).toBe(400);
      expect(words('shoal', removed)).toBe(words('engine', removed));
    }
    type Inspected = { Version: { Index: number }; Spec: object };
    const current = { engine: inspected.engine.body as Inspected, shoal: inspected.shoal.body as Inspected };
    const demoted = await diff.sendEach(
      'POST',
      { engine: `/nodes/${self.engine.NodeID}/update?version=${current.engine.Version.Index}`, shoal: `/nodes/${self.shoal.NodeID}/update?version=${current.shoal.Version.Index}` },
      { Labels: {}, Role: 'worker', Availability: 'drain' },
    );
    expect(Differential.compare(demoted)).toEqual({ status: [], body: [] });
    expect(demoted.shoal.status).toBe(400);
    expect(words('shoal', demoted)).toMatch(new RegExp(`^${words('engine', demoted)}`));
  });

  it('a swarm network (overlay, attachable, labels) inspects the same, in any ?scope= (Docker 20.10 answers a manager\'s swarm network in the local scope too)', async () => {
    const created = await diff.send('POST', '/networks/create', { Name: `net-${run}`, Driver: 'overlay', Attachable: true, Labels: { team: 'a' } });
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const ids = { engine: (created.engine.body as { Id: string }).Id, shoal: (created.shoal.body as { Id: string }).Id };
    try {
      // Pinned, each explained in docs/docker-compatibility.md (/networks): Shoal has no VXLAN
      // ids, it shows EnableIPv4 (API 1.47) at every version, and an empty Containers as {}.
      const pinned = [
        'Containers: engine null, shoal {}',
        'EnableIPv4: engine absent, shoal true',
        expect.stringMatching(/^Options\.com\.docker\.network\.driver\.overlay\.vxlanid_list: engine "\d+", shoal absent$/),
      ];
      // Both allocators follow their store: wait until each has given the network a subnet.
      await engineNetworkAllocated(ids);
      for (const scope of ['local', 'swarm']) {
        const answer = await diff.sendEach('GET', { engine: `/networks/${ids.engine}?scope=${scope}`, shoal: `/networks/${ids.shoal}?scope=${scope}` });
        expect(Differential.compare(answer)).toEqual({ status: [], body: pinned });
      }
    } finally {
      await diff.sendEach('DELETE', { engine: `/networks/${ids.engine}`, shoal: `/networks/${ids.shoal}` });
    }
  });
  it('a dnsrr service publishing a port in ingress mode is refused at create, as Docker does', async () => {
    const spec = {
      Name: `dnsrr-${run}`,
      TaskTemplate: { ContainerSpec: { Image: IMAGE } },
      Mode: { Replicated: { Replicas: 0 } },
      EndpointSpec: { Mode: 'dnsrr', Ports: [{ TargetPort: 80, PublishedPort: 30081, PublishMode: 'ingress' }] },
    };
    const answer = await diff.send('POST', '/services/create', spec);
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    expect(answer.shoal.status).toBe(400);
  });

  it("a network named in a service's Networks is resolved to its id, which inspect shows", async () => {
    const name = `attach-${run}`;
    const created = await diff.send('POST', '/networks/create', { Name: name, Driver: 'overlay' });
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const networkIds = { engine: (created.engine.body as { Id: string }).Id, shoal: (created.shoal.body as { Id: string }).Id };
    const spec = { Name: `attached-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE }, Networks: [{ Target: name, Aliases: ['web'] }] }, Mode: { Replicated: { Replicas: 0 } } };
    const service = await diff.send('POST', '/services/create', spec);
    expect([service.engine.status, service.shoal.status]).toEqual([201, 201]);
    const ids = idOf(service);
    try {
      await engineServiceAllocated(ids, 'VirtualIPs');
      const inspected = await diff.sendEach('GET', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
      expect(Differential.compare(inspected)).toEqual({ status: [], body: [] });
      type Attached = { Spec: { TaskTemplate: { Networks: { Target: string }[] } } };
      expect((inspected.shoal.body as Attached).Spec.TaskTemplate.Networks[0]!.Target).toBe(networkIds.shoal);
    } finally {
      await diff.sendEach('DELETE', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
      await diff.sendEach('DELETE', { engine: `/networks/${networkIds.engine}`, shoal: `/networks/${networkIds.shoal}` });
    }
  });
  it('a service update (new image, env, update config) inspects the same, PreviousSpec included; a stale version is refused on both (Docker 500, Shoal 409)', async () => {
    const spec = { Name: `upd-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE, Env: ['A=1'] } }, Mode: { Replicated: { Replicas: 0 } } };
    const created = await diff.send('POST', '/services/create', spec);
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const ids = idOf(created);
    services.push(ids);
    type Inspected = { Version: { Index: number } };
    const before = await diff.sendEach('GET', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
    const versions = { engine: (before.engine.body as Inspected).Version.Index, shoal: (before.shoal.body as Inspected).Version.Index };
    const changed = {
      ...spec,
      TaskTemplate: { ContainerSpec: { Image: 'shoal-test/web:latest', Env: ['A=2'] } },
      UpdateConfig: { Parallelism: 1, Delay: 1_000_000_000, FailureAction: 'pause', Monitor: 5_000_000_000, MaxFailureRatio: 0, Order: 'start-first' },
    };
    const updated = await diff.sendEach(
      'POST',
      { engine: `/services/${ids.engine}/update?version=${versions.engine}`, shoal: `/services/${ids.shoal}/update?version=${versions.shoal}` },
      changed,
    );
    expect(Differential.compare(updated)).toEqual({ status: [], body: [] });
    const after = await diff.sendEach('GET', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
    expect(Differential.compare(after)).toEqual({ status: [], body: [] });
    const stale = await diff.sendEach(
      'POST',
      { engine: `/services/${ids.engine}/update?version=${versions.engine}`, shoal: `/services/${ids.shoal}/update?version=${versions.shoal}` },
      spec,
    );
    // Docker 20.10 passes SwarmKit's "update out of sequence" on as a 500; Shoal answers 409
    // (a conflict, which it is), with the same words (docs/docker-compatibility.md).
    expect(Differential.compare(stale)).toEqual({ status: ['status: engine 500, shoal 409'], body: [] });
    expect((stale.engine.body as { message: string }).message).toMatch(/update out of sequence/);
    expect((stale.shoal.body as { message: string }).message).toMatch(/update out of sequence/);
  });
  it('a rollback returns to the previous spec and inspects the same, PreviousSpec included; without a previous spec it is refused on both', async () => {
    const spec = { Name: `rb-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE, Env: ['A=1'] } }, Mode: { Replicated: { Replicas: 0 } } };
    const created = await diff.send('POST', '/services/create', spec);
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    const ids = idOf(created);
    services.push(ids);
    const inspect = () => diff.sendEach('GET', { engine: `/services/${ids.engine}`, shoal: `/services/${ids.shoal}` });
    const versions = (answer: SideBySide) => ({
      engine: (answer.engine.body as { Version: { Index: number } }).Version.Index,
      shoal: (answer.shoal.body as { Version: { Index: number } }).Version.Index,
    });
    const update = (at: { engine: number; shoal: number }, body: unknown, query = '') =>
      diff.sendEach('POST', { engine: `/services/${ids.engine}/update?version=${at.engine}${query}`, shoal: `/services/${ids.shoal}/update?version=${at.shoal}${query}` }, body);

    const refused = await update(versions(await inspect()), spec, '&rollback=previous');
    expect(Differential.compare(refused)).toEqual({ status: [], body: [] });
    expect(refused.engine.status).toBe(400);
    for (const side of [refused.engine, refused.shoal]) expect((side.body as { message: string }).message).toMatch(/does not have a previous spec/);

    const changed = { ...spec, Labels: { stage: 'two' }, TaskTemplate: { ContainerSpec: { Image: IMAGE, Env: ['A=2'] } } };
    expect(Differential.compare(await update(versions(await inspect()), changed))).toEqual({ status: [], body: [] });
    // What `docker service rollback` sends: the current spec, with rollback=previous.
    const rolledBack = await update(versions(await inspect()), changed, '&rollback=previous');
    expect(Differential.compare(rolledBack)).toEqual({ status: [], body: [] });
    // Both complete the rollback (no task to replace): until both say so, then the same.
    let after = await inspect();
    const settled = (body: unknown) => (body as { UpdateStatus?: { State?: string } }).UpdateStatus?.State === 'rollback_completed';
    for (let attempt = 0; attempt < 100 && !(settled(after.engine.body) && settled(after.shoal.body)); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await inspect();
    }
    expect(Differential.compare(after)).toEqual({ status: [], body: [] });
    const shoalService = after.shoal.body as { Spec: { Labels?: object; TaskTemplate: { ContainerSpec: { Env: string[] } } }; PreviousSpec: { TaskTemplate: { ContainerSpec: { Env: string[] } } } };
    expect(shoalService.Spec.TaskTemplate.ContainerSpec.Env).toEqual(['A=1']);
    expect(shoalService.PreviousSpec.TaskTemplate.ContainerSpec.Env).toEqual(['A=2']);
  });

  it('filters of /tasks, /services and /nodes: what Docker accepts is accepted, what it refuses is refused in its words (its 500s are 400 on Shoal)', async () => {
    const filters = (value: unknown): string => `filters=${encodeURIComponent(JSON.stringify(value))}`;
    const queries = [
      // Every task state's name is a desired state Docker takes, in any case.
      ...['running', 'shutdown', 'accepted', 'complete', 'remove', 'Running'].map((state) => `/tasks?${filters({ 'desired-state': [state] })}`),
      `/tasks?${filters({ 'desired-state': ['bogus'] })}`,
      `/tasks?${filters({ bogus: ['x'] })}`,
      `/tasks?${filters({ node: [`none-${run}`] })}`,
      `/tasks?${filters({ '_up-to-date': ['maybe'] })}`,
      `/tasks?${filters({ label: ['a=b'], name: ['x'] })}`,
      `/services?${filters({ mode: ['bogus'] })}`,
      `/services?${filters({ bogus: ['x'] })}`,
      `/nodes?${filters({ role: ['bogus'] })}`,
      `/nodes?${filters({ membership: ['bogus'] })}`,
      '/tasks?filters=notjson',
    ];
    const seen: Record<string, { status: string[]; body: string[] }> = {};
    for (const query of queries) {
      const answer = await diff.send('GET', query);
      const comparison = Differential.compare(answer);
      if (comparison.status.length > 0 || comparison.body.length > 0) seen[query] = comparison;
    }
    // Docker answers an invalid value of these filters, and a query that is not JSON, 500:
    // the client's mistake, which Shoal answers 400 (docs/docker-compatibility.md).
    const pinned = { status: ['status: engine 500, shoal 400'], body: [] };
    expect(seen).toEqual({
      [`/tasks?${filters({ 'desired-state': ['bogus'] })}`]: pinned,
      [`/nodes?${filters({ role: ['bogus'] })}`]: pinned,
      [`/nodes?${filters({ membership: ['bogus'] })}`]: pinned,
      '/tasks?filters=notjson': pinned,
    });
  });

  describe('/secrets', () => {
    const prefix = `sec-${run}`;
    const key = `conformance.${run}`;
    const PASSWORD = 'correct horse battery staple';
    const base64 = (text: string): string => Buffer.from(text).toString('base64');
    /** An error's words, without the gRPC status Docker passes on ("rpc error: code = X desc = "). */
    const words = (answer: { readonly body: unknown }): string => (answer.body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '');
    const db = { Name: `${prefix}-db`, Labels: { [key]: 'db', tier: 'data' }, Data: base64(PASSWORD) };
    const api = { Name: `${prefix}-api`, Labels: { [key]: 'api' }, Data: base64('t0k3n') };
    const plain = { Name: `${prefix}-plain`, Data: base64('plain') };
    const made = new Map<string, { engine: string; shoal: string }>();
    const idsOf = (name: string): { engine: string; shoal: string } => made.get(name)!;
    const inspect = (name: string): Promise<SideBySide> => diff.sendEach('GET', { engine: `/secrets/${idsOf(name).engine}`, shoal: `/secrets/${idsOf(name).shoal}` });
    const versions = (answer: SideBySide) => ({
      engine: (answer.engine.body as { Version: { Index: number } }).Version.Index,
      shoal: (answer.shoal.body as { Version: { Index: number } }).Version.Index,
    });
    const update = (name: string, at: { engine: number; shoal: number }, body: unknown): Promise<SideBySide> =>
      diff.sendEach('POST', { engine: `/secrets/${idsOf(name).engine}/update?version=${at.engine}`, shoal: `/secrets/${idsOf(name).shoal}/update?version=${at.shoal}` }, body);
    /** What one side made of a create that should have been refused, removed after the test. */
    const keepForCleanup = (answer: SideBySide): void => {
      const kept = { engine: answer.engine.status === 201 ? idOf(answer).engine : '', shoal: answer.shoal.status === 201 ? idOf(answer).shoal : '' };
      if (kept.engine) secrets.push(kept);
      else if (kept.shoal) void diff.shoalOnly('DELETE', `/secrets/${kept.shoal}`);
    };

    it('create answers 201 {"ID": …} on both, for a secret with labels and one without', async () => {
      for (const spec of [db, api, plain]) {
        const created = await diff.send('POST', '/secrets/create', spec);
        expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
        const ids = idOf(created);
        secrets.push(ids);
        made.set(spec.Name, ids);
        expect(Differential.compare(created)).toEqual({ status: [], body: [] });
        for (const side of [created.engine, created.shoal]) expect(side.body).toEqual({ ID: expect.stringMatching(/^[a-z0-9]{25}$/) });
      }
    });

    it('inspect by id, name or id prefix answers the same, never with the data; Labels is {} when there are none', async () => {
      for (const spec of [db, plain]) {
        const ids = idsOf(spec.Name);
        for (const ref of [ids, { engine: spec.Name, shoal: spec.Name }, { engine: ids.engine.slice(0, 8), shoal: ids.shoal.slice(0, 8) }]) {
          const answer = await diff.sendEach('GET', { engine: `/secrets/${ref.engine}`, shoal: `/secrets/${ref.shoal}` });
          expect({ ref, ...Differential.compare(answer) }).toEqual({ ref, status: [], body: [] });
          expect(answer.shoal.status).toBe(200);
          expect((answer.shoal.body as { Spec: unknown }).Spec).toEqual({ Name: spec.Name, Labels: 'Labels' in spec ? spec.Labels : {} });
          expect(answer.engine.body).not.toHaveProperty('Spec.Data');
        }
      }
    });

    it('an unknown secret is 404 on both, in the same words, to inspect, update and remove', async () => {
      const none = `none-${run}`;
      for (const [method, path] of [['GET', `/secrets/${none}`], ['POST', `/secrets/${none}/update?version=1`], ['DELETE', `/secrets/${none}`]] as const) {
        const answer = await diff.send(method, path, method === 'POST' ? { Name: none } : undefined);
        expect({ path, ...Differential.compare(answer) }).toEqual({ path, status: [], body: [] });
        expect([answer.engine.status, words(answer.shoal)]).toEqual([404, words(answer.engine)]);
      }
    });

    it('create refuses a taken name (409), no data, empty data, data of 512000 bytes or more, bad names and a nameless driver (400), in the same shape; 511999 bytes are taken', async () => {
      const refusals: [string, unknown, number][] = [
        ['a taken name', { Name: db.Name, Data: base64('x') }, 409],
        ['no data', { Name: `${prefix}-none` }, 400],
        ['empty data', { Name: `${prefix}-empty`, Data: '' }, 400],
        ['512000 bytes', { Name: `${prefix}-big`, Data: Buffer.alloc(512_000, 'a').toString('base64') }, 400],
        ['no name', { Data: base64('x') }, 400],
        ['a name starting with -', { Name: '-x', Data: base64('x') }, 400],
        ['a name with a /', { Name: 'a/b', Data: base64('x') }, 400],
        ['a name of 65 characters', { Name: 'n'.repeat(65), Data: base64('x') }, 400],
        ['a driver without a name', { Name: `${prefix}-nameless`, Data: base64('x'), Driver: { Name: '' } }, 400],
      ];
      for (const [what, body, status] of refusals) {
        const answer = await diff.send('POST', '/secrets/create', body);
        keepForCleanup(answer);
        expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: [] });
        expect({ what, status: answer.shoal.status }).toEqual({ what, status });
      }
      // Shoal's words are SwarmKit's, with the field and the reason after them.
      const taken = await diff.send('POST', '/secrets/create', { Name: db.Name, Data: base64('x') });
      expect(words(taken.shoal)).toBe(words(taken.engine));
      const empty = await diff.send('POST', '/secrets/create', { Name: `${prefix}-empty`, Data: '' });
      expect(words(empty.shoal)).toContain(words(empty.engine));

      const largest = await diff.send('POST', '/secrets/create', { Name: `${prefix}-largest`, Data: Buffer.alloc(511_999, 'a').toString('base64') });
      keepForCleanup(largest);
      expect(Differential.compare(largest)).toEqual({ status: [], body: [] });
      expect(largest.shoal.status).toBe(201);
    });

    it('list: each filter (id prefix, name prefix, names, label key, label key=value) finds the same secrets on both', async () => {
      const list = async (filters: { engine: object; shoal: object }): Promise<SideBySide> => {
        const answer = await diff.sendEach('GET', {
          engine: `/secrets?filters=${encodeURIComponent(JSON.stringify(filters.engine))}`,
          shoal: `/secrets?filters=${encodeURIComponent(JSON.stringify(filters.shoal))}`,
        });
        return { engine: { ...answer.engine, body: inNameOrder(answer.engine.body) }, shoal: { ...answer.shoal, body: inNameOrder(answer.shoal.body) } };
      };
      const same = (filters: object) => ({ engine: filters, shoal: filters });
      const ids = idsOf(db.Name);
      const cases: [string, { engine: object; shoal: object }, string[]][] = [
        ['id prefix', { engine: { id: [ids.engine.slice(0, 10)] }, shoal: { id: [ids.shoal.slice(0, 10)] } }, [db.Name]],
        ['name prefix', same({ name: [`${prefix}-`] }), [api.Name, db.Name, `${prefix}-largest`, plain.Name]],
        ['name prefixes', same({ name: [`${prefix}-d`, `${prefix}-p`] }), [db.Name, plain.Name]],
        ['names', same({ names: [db.Name, api.Name] }), [api.Name, db.Name]],
        ['names, exact', same({ names: [prefix] }), []],
        ['label key', same({ label: [key] }), [api.Name, db.Name]],
        ['label key=value', same({ label: [`${key}=db`] }), [db.Name]],
        ['label key=value of none', same({ label: [`${key}=web`] }), []],
        ['name prefix and label', same({ name: [`${prefix}-`], label: ['tier'] }), [db.Name]],
      ];
      for (const [what, filters, names] of cases) {
        const answer = await list(filters);
        expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: [] });
        expect({ what, names: (answer.shoal.body as { Spec: { Name: string } }[]).map((secret) => secret.Spec.Name) }).toEqual({ what, names });
      }
      const unknown = await list(same({ bogus: ['x'] }));
      expect(Differential.compare(unknown)).toEqual({ status: [], body: [] });
      expect([unknown.shoal.status, words(unknown.shoal)]).toEqual([400, words(unknown.engine)]);
    });

    it('update: new labels at the current version, then the same Data again (what docker stack deploy sends), answer 200 on both and inspect the same', async () => {
      const relabelled = { ...db, Labels: { [key]: 'db', rotated: 'no' } };
      const { Data: _data, ...withoutData } = relabelled;
      const first = await update(db.Name, versions(await inspect(db.Name)), withoutData);
      expect(Differential.compare(first)).toEqual({ status: [], body: [] });
      expect(first.shoal.status).toBe(200);
      const afterFirst = await inspect(db.Name);
      expect(Differential.compare(afterFirst)).toEqual({ status: [], body: [] });
      expect((afterFirst.shoal.body as { Spec: unknown }).Spec).toEqual({ Name: db.Name, Labels: relabelled.Labels });

      const again = await update(db.Name, versions(afterFirst), { ...relabelled, Labels: { [key]: 'db', tier: 'data' } });
      expect(Differential.compare(again)).toEqual({ status: [], body: [] });
      expect(again.shoal.status).toBe(200);
      const afterAgain = await inspect(db.Name);
      expect(Differential.compare(afterAgain)).toEqual({ status: [], body: [] });
      expect((afterAgain.shoal.body as { Spec: unknown }).Spec).toEqual({ Name: db.Name, Labels: db.Labels });
      expect(versions(afterAgain).shoal).toBeGreaterThan(versions(afterFirst).shoal);
    });

    it('update: a new name or other Data is refused 400 on both ("only updates to Labels are allowed"), and changes nothing', async () => {
      const before = await inspect(db.Name);
      for (const body of [{ ...db, Name: `${prefix}-renamed` }, { ...db, Data: base64('another password') }]) {
        const answer = await update(db.Name, versions(before), body);
        expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
        expect(answer.shoal.status).toBe(400);
        expect(words(answer.shoal)).toContain(words(answer.engine));
      }
      const after = await inspect(db.Name);
      expect(versions(after)).toEqual(versions(before));
      expect(Differential.compare(after)).toEqual({ status: [], body: [] });
    });

    it('update at a stale version is refused on both, "update out of sequence" (Docker 500, Shoal 409)', async () => {
      const current = versions(await inspect(plain.Name));
      expect(Differential.compare(await update(plain.Name, current, { ...plain, Labels: { stage: 'one' } }))).toEqual({ status: [], body: [] });
      const stale = await update(plain.Name, current, { ...plain, Labels: { stage: 'two' } });
      // Docker 20.10 passes SwarmKit's "update out of sequence" on as a 500; Shoal answers 409
      // (a conflict, which it is), as for a service (docs/docker-compatibility.md).
      expect(Differential.compare(stale)).toEqual({ status: ['status: engine 500, shoal 409'], body: [] });
      expect(words(stale.engine)).toBe('update out of sequence');
      expect(words(stale.shoal)).toMatch(/^update out of sequence/);
    });

    it('a secret store Driver: Docker 500 (no such plugin), Shoal 400 naming the field; Templating: Docker keeps it, Shoal refuses it 400', async () => {
      const driver = await diff.send('POST', '/secrets/create', { Name: `${prefix}-driver`, Data: base64('x'), Driver: { Name: 'vault' } });
      keepForCleanup(driver);
      // Pinned (docs/docker-compatibility.md, /secrets): Shoal has no secret store plugins; it keeps every secret itself, sealed.
      expect(Differential.compare(driver)).toEqual({ status: ['status: engine 500, shoal 400'], body: [] });
      expect(words(driver.engine)).toBe('plugin "vault" not found');
      expect(words(driver.shoal)).toMatch(/^invalid Driver: /);

      const templated = await diff.send('POST', '/secrets/create', { Name: `${prefix}-tpl`, Data: base64('x'), Templating: { Name: 'golang' } });
      keepForCleanup(templated);
      // Pinned: Shoal's executors give a secret to tasks as it is; they expand no template.
      expect(Differential.compare(templated).status).toEqual(['status: engine 201, shoal 400']);
      expect(words(templated.shoal)).toMatch(/^invalid Templating: /);
    });

    it('a service with secret references inspects the same; a secret it uses is not removed (400, the same words); once the service is gone, remove answers 204', async () => {
      const ids = idsOf(api.Name);
      const asCli = { File: { Name: 'api-token', UID: '0', GID: '0', Mode: 0o444 }, SecretName: api.Name };
      const nameOnly = { File: { Name: 'token' }, SecretName: api.Name };
      const spec = (secretId: string) => ({
        Name: `secrets-${run}`,
        TaskTemplate: { ContainerSpec: { Image: IMAGE, Secrets: [{ ...asCli, SecretID: secretId }, { ...nameOnly, SecretID: secretId }] } },
        Mode: { Replicated: { Replicas: 0 } },
      });
      const created = await diff.sendEachWith('POST', '/services/create', { engine: spec(ids.engine), shoal: spec(ids.shoal) });
      expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
      const service = idOf(created);
      services.push(service);
      const inspected = await diff.sendEach('GET', { engine: `/services/${service.engine}`, shoal: `/services/${service.shoal}` });
      // Pinned (docs/docker-compatibility.md, /secrets): a File target without UID, GID or Mode
      // is kept as sent by Docker ("", "", 0: its executor then writes a file of mode 0000);
      // Shoal fills in what the docker CLI sends, "0", "0" and 0444.
      const at = 'Spec.TaskTemplate.ContainerSpec.Secrets[1].File';
      expect(Differential.compare(inspected)).toEqual({ status: [], body: [`${at}.GID: engine "", shoal "0"`, `${at}.Mode: engine 0, shoal 292`, `${at}.UID: engine "", shoal "0"`] });
      type Inspected = { Spec: { TaskTemplate: { ContainerSpec: { Secrets: unknown[] } } } };
      expect((inspected.shoal.body as Inspected).Spec.TaskTemplate.ContainerSpec.Secrets).toEqual([
        { ...asCli, SecretID: ids.shoal },
        { File: { Name: 'token', UID: '0', GID: '0', Mode: 0o444 }, SecretName: api.Name, SecretID: ids.shoal },
      ]);

      const inUse = await diff.sendEach('DELETE', { engine: `/secrets/${ids.engine}`, shoal: `/secrets/${ids.shoal}` });
      expect(Differential.compare(inUse)).toEqual({ status: [], body: [] });
      expect([inUse.shoal.status, words(inUse.shoal)]).toEqual([400, words(inUse.engine)]);
      expect(words(inUse.shoal)).toBe(`secret '${api.Name}' is in use by the following service: secrets-${run}`);
      expect(Differential.compare(await inspect(api.Name))).toEqual({ status: [], body: [] });

      expect(Differential.compare(await diff.sendEach('DELETE', { engine: `/services/${service.engine}`, shoal: `/services/${service.shoal}` }))).toEqual({ status: [], body: [] });
      const removed = await diff.sendEach('DELETE', { engine: `/secrets/${ids.engine}`, shoal: `/secrets/${ids.shoal}` });
      expect(Differential.compare(removed)).toEqual({ status: [], body: [] });
      expect([removed.engine.status, removed.shoal.status]).toEqual([204, 204]);
      const gone = await inspect(api.Name);
      expect([gone.engine.status, gone.shoal.status]).toEqual([404, 404]);
    });

    it('a service referencing a secret that does not exist, or by a name that is not its own, or with no id, is refused 400 on both', async () => {
      const ids = idsOf(plain.Name);
      const spec = (secret: object) => ({ Name: `nosecret-${run}`, TaskTemplate: { ContainerSpec: { Image: IMAGE, Secrets: [{ File: { Name: 'x', UID: '0', GID: '0', Mode: 0o444 }, ...secret }] } } });
      const cases: [string, { engine: object; shoal: object }][] = [
        ['no such secret', { engine: { SecretID: `n0t${run}`, SecretName: `gone-${run}` }, shoal: { SecretID: `n0t${run}`, SecretName: `gone-${run}` } }],
        ['a name that is not its own', { engine: { SecretID: ids.engine, SecretName: `gone-${run}` }, shoal: { SecretID: ids.shoal, SecretName: `gone-${run}` } }],
        ['no id', { engine: { SecretName: plain.Name }, shoal: { SecretName: plain.Name } }],
      ];
      for (const [what, secret] of cases) {
        const answer = await diff.sendEachWith('POST', '/services/create', { engine: spec(secret.engine), shoal: spec(secret.shoal) });
        if (answer.engine.status === 201) services.push({ engine: idOf(answer).engine, shoal: answer.shoal.status === 201 ? idOf(answer).shoal : '' });
        expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: [] });
        expect({ what, status: answer.shoal.status }).toEqual({ what, status: 400 });
        if (what !== 'no id') expect({ what, words: words(answer.shoal) }).toEqual({ what, words: `secret not found: gone-${run}` });
        if (what !== 'no id') expect(words(answer.engine)).toBe(`secret not found: gone-${run}`);
      }
    });
  });

  it('/version has the fields of Docker\'s, each of the same type (the values are each engine\'s own)', async () => {
    const answer = await diff.send('GET', '/version');
    const types = (body: unknown): Record<string, string> =>
      Object.fromEntries(Object.entries(body as Record<string, unknown>).map(([key, value]) => [key, Array.isArray(value) ? 'array' : typeof value]));
    expect([answer.engine.status, answer.shoal.status]).toEqual([200, 200]);
    const engine = types(answer.engine.body);
    // Every field the engine answers, Shoal answers with a value of the same type.
    expect(types(answer.shoal.body)).toMatchObject(engine);
  });
});
