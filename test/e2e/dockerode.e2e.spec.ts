/**
 * dockerode (a Docker SDK for Node that no one here wrote, unmodified) against `npm start`
 * (every component and three simulated nodes in one process, on the embedded log), over
 * Shoal's unix socket, as a new user would drive it: the swarm and its nodes, a replicated
 * service with the fields SDK users set (labels, env, resources, restart policy, update
 * config, healthcheck) inspected back as created, scaled with its version, its tasks
 * listed with filters and its logs read, configs and an overlay network — and the errors
 * the SDK surfaces, with Docker's status codes and messages.
 */
import { join } from 'node:path';
import Docker from 'dockerode';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';

/** The error dockerode rejects with when the API answers a status it does not expect. */
interface DockerodeError {
  readonly statusCode: number;
  readonly json: { readonly message: string } | null;
}

/** The (stream, text) frames of a non-TTY log body, as Docker multiplexes stdout and stderr on one stream. */
const demultiplex = (body: Buffer): { stream: number; text: string }[] => {
  const frames: { stream: number; text: string }[] = [];
  for (let at = 0; at + 8 <= body.length; ) {
    const size = body.readUInt32BE(at + 4);
    frames.push({ stream: body[at]!, text: body.subarray(at + 8, at + 8 + size).toString('utf8') });
    at += 8 + size;
  }
  return frames;
};

/** What `promise` rejected with; fails if it resolved. */
const rejection = async (promise: Promise<unknown>): Promise<DockerodeError> => {
  try {
    await promise;
  } catch (error) {
    return error as DockerodeError;
  }
  throw new Error('expected the call to be refused');
};

describe('dockerode against npm start', () => {
  let shoal: ShoalProcesses;
  let docker: Docker;
  /** When the test began, in Unix seconds (the events' `since`). */
  const startedAt = Math.floor(Date.now() / 1000) - 1;

  /** The service's tasks that are to run and running, once there are `count` of them (at most 30 s). */
  const runningTasks = async (serviceId: string, count: number): Promise<{ ID: string; Slot: number; NodeID: string; Status: { State: string } }[]> => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const tasks = (await docker.listTasks({ filters: { service: [serviceId], 'desired-state': ['running'] } })) as { ID: string; Slot: number; NodeID: string; Status: { State: string } }[];
      if (tasks.length === count && tasks.every((task) => task.Status.State === 'running')) return tasks;
      if (Date.now() > deadline) throw new Error(`${serviceId}: ${count} running tasks not seen in 30 s: ${JSON.stringify(tasks.map((task) => task.Status.State))}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  };

  beforeAll(async () => {
    shoal = ShoalProcesses.embedded('dockerode', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
    await shoal.start().waitFor(/Ctrl-C stops it/, 90_000);
    docker = new Docker({ socketPath: join(shoal.dataDir, 'shoal.sock') });
  });
  afterAll(() => shoal?.close());

  it('swarmInspect and listNodes: a swarm with three ready nodes', async () => {
    const swarm = (await docker.swarmInspect()) as { ID: string; Spec: { Orchestration: unknown; Dispatcher: { HeartbeatPeriod: number } }; JoinTokens: { Worker: string } };
    expect(swarm.ID).toMatch(/^\w+$/);
    expect(swarm.JoinTokens.Worker).toMatch(/^SWMTKN-1-/);
    // Durations are nanoseconds on the Docker surface.
    expect(swarm.Spec.Dispatcher.HeartbeatPeriod % 1_000_000).toBe(0);
    expect(swarm.Spec.Dispatcher.HeartbeatPeriod).toBeGreaterThanOrEqual(1_000_000_000);
    const nodes = (await docker.listNodes()) as { ID: string; Description: { Hostname: string }; Status: { State: string } }[];
    const workers = nodes.filter((node) => /^sim-node-\d$/.test(node.Description.Hostname));
    expect(workers).toHaveLength(3);
    for (const node of workers) expect(node.Status.State).toBe('ready');
    const [first] = workers;
    expect((await docker.getNode(first!.ID).inspect()) as { ID: string }).toMatchObject({ ID: first!.ID });
  });

  it('ping, version and info; a client pinned to API v1.41 is answered the same', async () => {
    expect(String(await docker.ping())).toBe('OK');
    const version = (await docker.version()) as { ApiVersion: string; MinAPIVersion: string; Os: string };
    expect(version.ApiVersion).toMatch(/^1\.\d+$/);
    expect(version.Os).toBe('linux');
    const info = (await docker.info()) as { Swarm: { LocalNodeState: string; ControlAvailable: boolean; Nodes: number } };
    expect(info.Swarm).toMatchObject({ LocalNodeState: 'active', ControlAvailable: true });
    const pinned = new Docker({ socketPath: join(shoal.dataDir, 'shoal.sock'), version: 'v1.41' });
    expect(((await pinned.swarmInspect()) as { ID: string }).ID).toBe(((await docker.swarmInspect()) as { ID: string }).ID);
  });

  let serviceId: string;
  const spec = {
    Name: 'sdk-web',
    Labels: { tier: 'front', 'com.example.team': 'sdk' },
    TaskTemplate: {
      ContainerSpec: {
        Image: 'nginx:1.27',
        Env: ['A=1', 'B=two'],
        Healthcheck: { Test: ['CMD', 'true'], Interval: 2_000_000_000, Timeout: 1_000_000_000, Retries: 3, StartPeriod: 500_000_000 },
      },
      Resources: { Limits: { NanoCPUs: 500_000_000, MemoryBytes: 134_217_728, Pids: 100 }, Reservations: { MemoryBytes: 67_108_864 } },
      RestartPolicy: { Condition: 'on-failure', Delay: 3_000_000_000, MaxAttempts: 4, Window: 60_000_000_000 },
    },
    Mode: { Replicated: { Replicas: 2 } },
    UpdateConfig: { Parallelism: 2, Delay: 250_000_000, FailureAction: 'pause', Monitor: 1_000_000_000, MaxFailureRatio: 0, Order: 'stop-first' },
  };

  it('createService, and getService().inspect() returns what was created', async () => {
    const service = await docker.createService(spec);
    serviceId = service.id;
    expect(serviceId).toMatch(/^[0-9a-z]{25}$/);
    const inspected = (await docker.getService(serviceId).inspect()) as { ID: string; Version: { Index: number }; Spec: typeof spec };
    expect(inspected.ID).toBe(serviceId);
    expect(inspected.Spec).toMatchObject({
      Name: 'sdk-web',
      Labels: spec.Labels,
      TaskTemplate: {
        ContainerSpec: { Image: 'nginx:1.27', Env: ['A=1', 'B=two'], Healthcheck: spec.TaskTemplate.ContainerSpec.Healthcheck },
        Resources: spec.TaskTemplate.Resources,
        RestartPolicy: spec.TaskTemplate.RestartPolicy,
      },
      Mode: { Replicated: { Replicas: 2 } },
      // A Delay of 250 ms in nanoseconds comes back as given, not rounded to seconds or milliseconds.
      UpdateConfig: spec.UpdateConfig,
    });
    // The service list has it by name, through the SDK's filters.
    const listed = (await docker.listServices({ filters: { name: ['sdk-web'] } })) as { ID: string }[];
    expect(listed.map((entry) => entry.ID)).toEqual([serviceId]);
  });

  it('its tasks run on the simulated nodes; listTasks filters by service and desired state', async () => {
    const tasks = await runningTasks(serviceId, 2);
    expect(tasks.map((task) => task.Slot).sort()).toEqual([1, 2]);
    const nodeIds = new Set(((await docker.listNodes()) as { ID: string }[]).map((node) => node.ID));
    for (const task of tasks) expect(nodeIds.has(task.NodeID)).toBe(true);
    // A filter naming another desired state finds none of them.
    expect(await docker.listTasks({ filters: { service: [serviceId], 'desired-state': ['shutdown'] } })).toEqual([]);
    const [one] = tasks;
    const byId = (await docker.listTasks({ filters: { id: [one!.ID] } })) as { ID: string; ServiceID: string }[];
    expect(byId).toEqual([expect.objectContaining({ ID: one!.ID, ServiceID: serviceId })]);
    expect(await docker.getTask(one!.ID).inspect()).toMatchObject({ ID: one!.ID, ServiceID: serviceId, Spec: { ContainerSpec: { Image: 'nginx:1.27' } } });
  });

  it('service.update with the version scales it; a stale version is refused', async () => {
    const service = docker.getService(serviceId);
    const before = (await service.inspect()) as { Version: { Index: number }; Spec: typeof spec };
    await service.update({ ...before.Spec, Mode: { Replicated: { Replicas: 3 } }, version: before.Version.Index });
    const after = (await service.inspect()) as { Version: { Index: number }; Spec: typeof spec; PreviousSpec?: typeof spec };
    expect(after.Version.Index).toBeGreaterThan(before.Version.Index);
    expect(after.Spec).toMatchObject({ ...spec, Mode: { Replicated: { Replicas: 3 } } });
    expect(after.PreviousSpec).toMatchObject({ Mode: { Replicated: { Replicas: 2 } } });
    expect(await runningTasks(serviceId, 3)).toHaveLength(3);

    const stale = await rejection(service.update({ ...before.Spec, version: before.Version.Index }));
    // Docker answers 500 here; Shoal's 409 (docs/docker-compatibility.md), which dockerode surfaces as it is.
    expect(stale.statusCode).toBe(409);
    expect(stale.json?.message).toMatch(/update out of sequence/);
  });

  it("service.logs reads each task's output, multiplexed as Docker's", async () => {
    const body = (await docker.getService(serviceId).logs({ stdout: true, stderr: true })) as unknown as Buffer;
    const frames = demultiplex(body);
    const lines = frames.map((frame) => frame.text.trim()).filter(Boolean);
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).toBe('simulated task: image nginx:1.27; nothing runs on this simulated node');
    expect(frames.every((frame) => frame.stream === 1)).toBe(true);
    // Without a stream chosen, Docker's 400.
    const none = await rejection(docker.getService(serviceId).logs({}) as Promise<unknown>);
    expect(none.statusCode).toBe(400);
  });

  it('createConfig, listConfigs and remove', async () => {
    const created = (await docker.createConfig({ Name: 'sdk-conf', Labels: { app: 'web' }, Data: Buffer.from('listen 80\n').toString('base64') })) as { id: string };
    expect(created.id).toMatch(/^[0-9a-z]{25}$/);
    const listed = await docker.listConfigs({ filters: { name: ['sdk-conf'] } });
    expect(listed).toEqual([expect.objectContaining({ ID: created.id, Spec: expect.objectContaining({ Name: 'sdk-conf', Labels: { app: 'web' } }) })]);
    const inspected = (await docker.getConfig(created.id).inspect()) as { Spec: { Data: string } };
    expect(Buffer.from(inspected.Spec.Data, 'base64').toString()).toBe('listen 80\n');
    await docker.getConfig(created.id).remove();
    expect(await docker.listConfigs({ filters: { name: ['sdk-conf'] } })).toEqual([]);
    const gone = await rejection(docker.getConfig(created.id).inspect());
    expect(gone.statusCode).toBe(404);
  });

  it('createNetwork (overlay, attachable, labels) and inspect', async () => {
    const network = await docker.createNetwork({ Name: 'sdk-net', Driver: 'overlay', Attachable: true, Labels: { purpose: 'sdk' }, CheckDuplicate: true });
    const inspected = (await network.inspect()) as { Id: string; Name: string; Driver: string; Scope: string; Attachable: boolean; Labels: Record<string, string> };
    expect(inspected).toMatchObject({ Id: network.id, Name: 'sdk-net', Driver: 'overlay', Scope: 'swarm', Attachable: true, Labels: { purpose: 'sdk' } });
    const listed = (await docker.listNetworks({ filters: { label: ['purpose=sdk'] } })) as { Id: string }[];
    expect(listed.map((entry) => entry.Id)).toEqual([network.id]);
    await network.remove();
    expect((await rejection(network.inspect())).statusCode).toBe(404);
  });

  it("service.remove, and a missing service is dockerode's 404 with Docker's message", async () => {
    await docker.getService(serviceId).remove();
    const missing = await rejection(docker.getService(serviceId).inspect());
    expect(missing.statusCode).toBe(404);
    expect(missing.json?.message).toBe(`service ${serviceId} not found`);
    const byName = await rejection(docker.getService('no-such-service').inspect());
    expect(byName).toMatchObject({ statusCode: 404, json: { message: 'service no-such-service not found' } });
    // A service that conflicts by name is refused as Docker refuses it.
    await docker.createService({ ...spec, Name: 'sdk-dup', Mode: { Replicated: { Replicas: 0 } } });
    const duplicate = await rejection(docker.createService({ ...spec, Name: 'sdk-dup' }));
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json?.message).toMatch(/name conflicts with an existing object/);
  });

  it("getEvents between two times: the service's create, update and remove, filtered by type", async () => {
    const stream = await docker.getEvents({ since: startedAt, until: Math.ceil(Date.now() / 1000) + 1, filters: { type: ['service'], service: [serviceId] } });
    let text = '';
    for await (const chunk of stream as AsyncIterable<Buffer>) text += chunk.toString('utf8');
    const events = text.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as { Type: string; Action: string; Actor: { ID: string; Attributes: { name?: string } }; scope: string });
    expect(events.map((event) => event.Action)).toEqual(['create', 'update', 'remove']);
    for (const event of events) expect(event).toMatchObject({ Type: 'service', scope: 'swarm', Actor: { ID: serviceId, Attributes: { name: 'sdk-web' } } });
  });
});
