/**
 * Docker conformance, side by side: every request here goes to the test run's Docker engine
 * in swarm mode and to Shoal (`shoal run api` on the real broker), at API 1.41, and the
 * answers are compared after the one normaliser (test/conformance/normalise.ts). Where
 * Shoal differs on purpose, the exact difference is pinned here and explained in
 * docs/docker-compatibility.md; a new difference fails the suite.
 */
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
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
  it("/info: the Swarm section matches, but for the engine's own listen address, its node count and address pool", async () => {
    const answer = await diff.send('GET', '/info');
    const swarmOf = (body: unknown): unknown => (body as { Swarm: unknown }).Swarm;
    const swarm = Differential.compare({ engine: { ...answer.engine, body: swarmOf(answer.engine.body) }, shoal: { ...answer.shoal, body: swarmOf(answer.shoal.body) } });
    expect(swarm.status).toEqual([]);
    expect(swarm.body.map((line) => line.split(':')[0])).toEqual(['Cluster.DefaultAddrPool', 'Nodes', 'RemoteManagers[0].Addr']);
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
