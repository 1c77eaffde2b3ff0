import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pidAlive } from '../../libs/testing/src/processes/pid-alive';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { eventually } from '../../libs/testing/src/eventually';

interface DockerTask {
  readonly ID: string;
  readonly NodeID?: string;
  readonly DesiredState: string;
  readonly Status: { readonly State: string };
}
interface DockerNode {
  readonly ID: string;
  readonly Description: { readonly Hostname: string };
  readonly Status: { readonly State: string };
}
// Shoal deployed as separate processes on a real broker: the API, the allocator, the
// orchestrator, two schedulers, the reaper, the dispatcher, and two agent processes of
// simulated nodes. A service runs; an agent process dies and its nodes' tasks move; the
// active scheduler dies mid-deployment and its standby finishes the placement; the log
// audits clean; every process restarts and all of them reach the same state hash.
describe('Shoal as separate processes on Kafka', () => {
  let deployment: ShoalProcesses;
  beforeAll(() => {
    deployment = ShoalProcesses.onKafka('e2e', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  });
  afterAll(() => deployment?.close());

  // One deployment, one story: each step starts where the one before ended.
  let cluster: ShoalCluster;
  let socket: string;
  let betaNodes: Set<string>;
  let beta: ShoalProcess;
  let alpha: ShoalProcess;
  const runningTasks = (count: number, accept: (t: DockerTask) => boolean = () => true) => async (): Promise<DockerTask[] | undefined> => {
    const { body } = await dockerApi<DockerTask[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`);
    const up = body.filter((t) => t.Status.State === 'running');
    return up.length === count && up.every(accept) ? up : undefined;
  };

  it('runs a service on two agents\' nodes, one task per node', async () => {
    cluster = await ShoalCluster.start(deployment, { schedulers: 2 });
    socket = cluster.socket;
    alpha = await cluster.agent('alpha-');
    beta = await cluster.agent('beta-');
    const nodes = await eventually('four nodes are ready', async () => {
      const { body } = await dockerApi<DockerNode[]>(socket, 'GET', `/nodes?filters=${encodeURIComponent(JSON.stringify({ role: ['worker'] }))}`);
      return body.filter((n) => n.Status.State === 'ready').length === 4 ? body : undefined;
    }, 90_000);
    betaNodes = new Set(nodes.filter((n) => n.Description.Hostname.startsWith('beta-')).map((n) => n.ID));
    expect(betaNodes.size).toBe(2);

    const created = await dockerApi(socket, 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' }, RestartPolicy: { Condition: 'any', Delay: 0 } },
      Mode: { Replicated: { Replicas: 4 } },
    });
    expect(created.status).toBe(201);
    const spread = await eventually('four tasks run, one per node', runningTasks(4), 90_000);
    expect(new Set(spread.map((t) => t.NodeID)).size).toBe(4);
  });

  it('every process answers /metrics with its own families and the process\'s defaults, /healthz and /readyz', async () => {
    const sample = (text: string, series: string): number | undefined => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    const processDefaults = (text: string): void => {
      expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(sample(text, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(text).toMatch(/^# TYPE nodejs_eventloop_lag_seconds gauge$/m);
    };
    const ticked = new Map<string, number>();
    for (const component of cluster.components) {
      const base = `http://127.0.0.1:${component.healthPort}`;
      const scraped = await fetch(`${base}/metrics`);
      expect(scraped.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
      const text = await scraped.text();
      processDefaults(text);
      const view = component.name;
      expect(sample(text, `shoal_view_position{view="${view}"}`)).toBeGreaterThan(0);
      expect(sample(text, `shoal_view_lag_records{view="${view}"}`)).toBeGreaterThanOrEqual(0);
      expect(sample(text, `shoal_records_total{view="${view}",verdict="poison"}`)).toBe(0);
      expect(sample(text, `shoal_verdicts_total{view="${view}",outcome="applied",reason="none"}`)).toBeGreaterThan(0);
      // Every view saw the four tasks of web reach RUNNING.
      expect(sample(text, `shoal_task_time_to_running_seconds_count{view="${view}"}`)).toBeGreaterThanOrEqual(4);
      expect([0, 1]).toContain(sample(text, `shoal_component_active{component="${view}"}`));
      expect(text).toMatch(/^# TYPE shoal_component_tick_duration_seconds histogram$/m);
      const ticks = sample(text, `shoal_component_tick_duration_seconds_count{component="${view}"}`) ?? 0;
      ticked.set(view, (ticked.get(view) ?? 0) + ticks);
      if (view === 'dispatcher') expect(sample(text, 'shoal_dispatcher_sessions{registration="open"}')).toBe(4);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      await eventually(`the ${view} on port ${component.healthPort} is ready`, async () => (await fetch(`${base}/readyz`)).status === 200, 30_000);
    }
    // Creating web made the allocator, the orchestrator, the scheduler and the dispatcher act.
    for (const acted of ['allocator', 'orchestrator', 'scheduler', 'dispatcher']) expect(ticked.get(acted)).toBeGreaterThan(0);

    // The API, over its socket: its view, the cluster by state, its requests by route.
    const api = String((await dockerApi<string>(socket, 'GET', '/metrics')).body);
    processDefaults(api);
    expect(sample(api, 'shoal_tasks{state="running",desired_state="running"}')).toBe(4);
    expect(sample(api, 'shoal_nodes{state="ready",availability="active",role="worker"}')).toBe(4);
    expect(sample(api, 'shoal_api_request_duration_seconds_count{method="GET",route="/tasks",status="200"}')).toBeGreaterThan(0);
    expect((await dockerApi(socket, 'GET', '/healthz')).status).toBe(200);
    expect((await dockerApi(socket, 'GET', '/readyz')).status).toBe(200);

    // An agent process, on the port SHOAL_HEALTH_PORT=0 gave it.
    const [, agentPort] = await alpha.waitFor(/agent: metrics on http:\/\/127\.0\.0\.1:(\d+)\/metrics/, 30_000);
    const agentBase = `http://127.0.0.1:${agentPort}`;
    const agent = await (await fetch(`${agentBase}/metrics`)).text();
    processDefaults(agent);
    expect(sample(agent, 'shoal_agent_sessions{connected="true"}')).toBe(2);
    // The first heartbeat goes one period after the session opens: counted once it has.
    const heartbeats = async () => sample(await (await fetch(`${agentBase}/metrics`)).text(), 'shoal_agent_heartbeats_total');
    await eventually('the agent counts a heartbeat it sent', async () => ((await heartbeats()) ?? 0) > 0, 30_000);
    expect((await fetch(`${agentBase}/healthz`)).status).toBe(200);
    expect((await fetch(`${agentBase}/readyz`)).status).toBe(200);

    // Every process logs JSON lines (their output is a pipe here), with no terminal escape.
    for (const component of [...cluster.components.map((c) => c.process), alpha]) {
      const line = component.output.split('\n').find((l) => l.includes('"component"'));
      expect(line).toBeDefined();
      expect(JSON.parse(line!)).toMatchObject({ level: expect.any(String), time: expect.any(String), msg: expect.any(String) });
      // eslint-disable-next-line no-control-regex
      expect(component.output).not.toMatch(/\u001b\[/);
    }
  });

  it('moves the tasks of a dead agent\'s nodes to the live ones', async () => {

    // The agent process dies: its two nodes go DOWN and their tasks are replaced on the others.
    await beta.crash();
    await eventually('the dead agent\'s nodes are down', async () => {
      const { body } = await dockerApi<DockerNode[]>(socket, 'GET', '/nodes');
      return body.filter((n) => betaNodes.has(n.ID)).every((n) => n.Status.State === 'down') ? true : undefined;
    }, 60_000);
    await eventually('four tasks run on the live nodes', runningTasks(4, (t) => !betaNodes.has(t.NodeID ?? '')), 90_000);
  });

  it('finishes placing a deployment when the active scheduler dies in the middle of it', async () => {
    // What the dying scheduler had not placed yet, and what is created during the takeover,
    // the standby places under term 2. Each task is assigned once, and nothing of term 1
    // lands after term 2 began.
    const states = await Promise.all(cluster.instances('scheduler').map(async (s) => ({ s, state: (await cluster.health(s)).state })));
    expect(states.map((x) => x.state).sort()).toEqual(['active', 'standby']);
    const active = states.find((x) => x.state === 'active')!.s;
    const standby = states.find((x) => x.state === 'standby')!.s;
    const batch = Array.from({ length: 8 }, (_, i) => `batch-${i + 1}`);
    const deploying = (async () => {
      for (const name of batch) {
        const answer = await dockerApi(socket, 'POST', '/v1.47/services/create', {
          Name: name,
          TaskTemplate: { ContainerSpec: { Image: 'busybox:1.36' } },
          Mode: { Replicated: { Replicas: 10 } },
        });
        if (answer.status !== 201) throw new Error(`creating ${name} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
        // The services of a deployment arrive one after another, not at once.
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    await eventually('the first task of the deployment is assigned', async () => {
      // Until batch-1 is created, the filter names no service and the answer is Docker's 404.
      const { status, body } = await dockerApi<DockerTask[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['batch-1'] }))}`);
      return status === 200 && body.some((t) => t.NodeID) ? true : undefined;
    }, { timeoutMs: 60_000, everyMs: 10 });
    await active.process.crash();
    await deploying;
    const taken = await eventually('the standby scheduler is active', async () => {
      const h = await cluster.health(standby);
      return h.state === 'active' ? h : undefined;
    }, 90_000);
    expect(taken.term).toBe(2);
    const batchTasks = await eventually('every task of the deployment runs', async () => {
      const { body } = await dockerApi<DockerTask[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: batch, 'desired-state': ['running'] }))}`);
      const up = body.filter((t) => t.Status.State === 'running' && !betaNodes.has(t.NodeID ?? ''));
      return up.length === batch.length * 10 ? up : undefined;
    }, 90_000);
    const assigned = await scheduling(socket);
    const termOf = new Map<string, number[]>();
    for (const record of assigned.filter((r) => r.verdict.status === 'applied' && r.type === 'TasksAssigned')) {
      for (const { id } of record.data.tasks) termOf.set(id, [...(termOf.get(id) ?? []), termIn(record)]);
    }
    const terms = batchTasks.map((t) => termOf.get(t.ID) ?? []);
    expect(terms.every((t) => t.length === 1)).toBe(true);
    expect(new Set(terms.flat())).toEqual(new Set([1, 2]));
    const secondTerm = assigned.find((r) => r.type === 'OwnershipTaken' && r.verdict.status === 'applied' && r.data.component === 'scheduler' && r.data.term === 2)!;
    const lateWrites = assigned.filter((r) => r.type === 'TasksAssigned' && r.offset > secondTerm.offset && termIn(r) === 1);
    expect(lateWrites.every((r) => r.verdict.status === 'rejected')).toBe(true);
  });

  it('audits clean: replays agree and no record is poison', async () => {
    const verify = await runShoalCli(['audit', 'verify', '--json'], deployment.env, 120_000);
    expect(verify.code).toBe(0);
    const report = JSON.parse(verify.stdout) as { agree: boolean; tally: { poison: number } };
    expect(report.agree).toBe(true);
    expect(report.tally.poison).toBe(0);
  });

  it('restarts every control-plane process to one state: each resumes from its snapshot, reads the log to its end and reaches the hash an audit replay does', async () => {
    await cluster.restart();
    // Each saved its view as it stopped, and each new process started from that snapshot.
    for (const c of cluster.components) await c.process.waitFor(/view restored from the snapshot at offset \d+/, 30_000);
    let seen: unknown;
    const agreed = await eventually('every process has read the whole log', async () => {
      const { body: api } = await dockerApi<{ position: number; hash: string }>(socket, 'GET', '/statez');
      const views = await Promise.all(cluster.components.map((c) => cluster.stateHash(c)));
      const { body: ready } = await dockerApi<{ highWaterMark?: number }>(socket, 'GET', '/readyz');
      const end = ready.highWaterMark;
      seen = { ready, api, views };
      return end !== undefined && api.position === end && views.every((v) => v.position === end) ? { end, hashes: [api.hash, ...views.map((v) => v.hash)] } : undefined;
    }, { timeoutMs: 90_000, everyMs: 200, explain: () => seen });
    const replay = await runShoalCli(['audit', 'replay', '--to', String(agreed.end), '--json'], deployment.env, 120_000);
    expect(replay.code).toBe(0);
    const replayed = JSON.parse(replay.stdout) as { offset: number; hash: string };
    expect(replayed.offset).toBe(agreed.end);
    expect(agreed.hashes).toEqual(Array(cluster.components.length + 1).fill(replayed.hash));
    await eventually('the service runs on', runningTasks(4), 90_000);
  });

  it('docker service logs shows what a task on an exec agent wrote, each stream on its own, through the API and dispatcher processes', async () => {
    const token = await cluster.workerToken();
    const agent = deployment.cli(['agent', '--join-token', token, '--dispatcher', cluster.dispatcher, '--hostname', 'exec-talker']);
    await agent.waitFor(/joined the dispatcher/, 90_000);
    const command = ['sh', '-c', 'echo hello from the task; echo something went wrong >&2; exec sleep 600'];
    const created = await cluster.docker(['service', 'create', '-d', '--name', 'talker', '--constraint', 'node.hostname==exec-talker', 'exec', ...command]);
    expect(created).toMatchObject({ code: 0 });
    const logs = await eventually('both lines in docker service logs', async () => {
      const result = await cluster.docker(['service', 'logs', 'talker']);
      return result.code === 0 && result.stdout !== '' && result.stderr !== '' ? result : undefined;
    }, 90_000);
    expect(logs.stdout).toMatch(/^talker\.1\.[0-9a-z]{12}@exec-talker +\| hello from the task\n$/);
    expect(logs.stderr).toMatch(/^talker\.1\.[0-9a-z]{12}@exec-talker +\| something went wrong\n$/);
    // A task by its id, with the times the agent read each line.
    const taskId = (await cluster.docker(['service', 'ps', '-q', '--no-trunc', 'talker'])).stdout.trim();
    const timed = await cluster.docker(['service', 'logs', '--timestamps', '--no-trunc', taskId]);
    expect(timed.stdout).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{9}Z talker\\.1\\.${taskId}@exec-talker +\\| hello from the task\\n$`));
    expect((await cluster.docker(['service', 'rm', 'talker'])).code).toBe(0);
    await agent.stop();
  });

  it('an exec task reads the config it was given, and a new config rolled out with docker service update reaches its replacement', async () => {
    const token = await cluster.workerToken();
    const agent = deployment.cli(['agent', '--join-token', token, '--dispatcher', cluster.dispatcher, '--hostname', 'exec-configs']);
    await agent.waitFor(/joined the dispatcher/, 90_000);
    const first = join(deployment.dataDir, 'greeting-1.txt');
    const second = join(deployment.dataDir, 'greeting-2.txt');
    writeFileSync(first, 'hello from the first config\n');
    writeFileSync(second, 'hello from the second config\n');
    expect(await cluster.docker(['config', 'create', 'greeting-1', first])).toMatchObject({ code: 0 });
    expect(await cluster.docker(['config', 'create', 'greeting-2', second])).toMatchObject({ code: 0 });

    const command = ['sh', '-c', 'cat "$SHOAL_TASK_ROOT/etc/greeting"; exec sleep 600'];
    const created = await cluster.docker(['service', 'create', '-d', '--name', 'reader', '--constraint', 'node.hostname==exec-configs', '--config', 'src=greeting-1,target=/etc/greeting', 'exec', ...command]);
    expect(created).toMatchObject({ code: 0 });
    const logsSay = (text: string) => async () => {
      const result = await cluster.docker(['service', 'logs', 'reader']);
      return result.stdout.includes(text) ? result.stdout : undefined;
    };
    await eventually('the task printed its config', logsSay('hello from the first config'), 90_000);

    // Rotation as Docker documents it: a new config at the same target, then the old one is free to go.
    const updated = await cluster.docker(['service', 'update', '-d', '--config-rm', 'greeting-1', '--config-add', 'src=greeting-2,target=/etc/greeting', 'reader']);
    expect(updated).toMatchObject({ code: 0 });
    await eventually('the replacement printed the new config', logsSay('hello from the second config'), 90_000);
    const inUse = await cluster.docker(['config', 'rm', 'greeting-2']);
    expect(inUse.code).not.toBe(0);
    expect(inUse.stderr).toMatch(/config 'greeting-2' is in use by the following service: reader/);
    expect(await cluster.docker(['config', 'rm', 'greeting-1'])).toMatchObject({ code: 0 });
    expect((await cluster.docker(['service', 'rm', 'reader'])).code).toBe(0);
    expect(await cluster.docker(['config', 'rm', 'greeting-2'])).toMatchObject({ code: 0 });
    await agent.stop();
  });

  it('an exec agent killed and restarted with its state dir stops the task process it left, its task is replaced, and what the task wrote is still in docker service logs', async () => {
    const stateDir = join(deployment.dataDir, 'exec-agent');
    const pids = join(deployment.dataDir, 'sleeper.pids');
    const token = await cluster.workerToken();
    const execAgent = (): ShoalProcess =>
      deployment.cli(['agent', '--join-token', token, '--dispatcher', cluster.dispatcher, '--hostname', 'exec-1', '--state-dir', stateDir]);
    let agent = execAgent();
    await agent.waitFor(/joined the dispatcher/, 90_000);
    const created = await dockerApi(socket, 'POST', '/v1.47/services/create', {
      Name: 'sleeper',
      TaskTemplate: {
        ContainerSpec: { Image: 'exec', Command: ['sh', '-c', `echo $$ >> ${pids}; echo started $$; exec sleep 600`] },
        Placement: { Constraints: ['node.hostname==exec-1'] },
        RestartPolicy: { Condition: 'any', Delay: 0 },
      },
      Mode: { Replicated: { Replicas: 1 } },
    });
    expect(created.status).toBe(201);
    const started = (count: number) => async (): Promise<number[] | undefined> => {
      const seen = existsSync(pids) ? readFileSync(pids, 'utf8').trim().split('\n').filter(Boolean).map(Number) : [];
      return seen.length === count ? seen : undefined;
    };
    const [first] = await eventually('the task runs as a real process', started(1), 90_000);
    expect(pidAlive(first!)).toBe(true);
    const sleeperTasks = async () =>
      (await dockerApi<(DockerTask & { Status: { Err?: string } })[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['sleeper'] }))}`)).body;
    await eventually('the log has the task RUNNING', async () => ((await sleeperTasks()).some((t) => t.Status.State === 'running') ? true : undefined), 30_000);

    // The agent dies; its task's process, in a process group of its own, runs on.
    await agent.crash();
    expect(pidAlive(first!)).toBe(true);
    agent = execAgent();
    await agent.waitFor(new RegExp(`stopped process ${first}, which the previous agent left running`), 90_000);
    await eventually('the old process is gone', async () => (pidAlive(first!) ? undefined : true), 30_000);
    const [, second] = await eventually('a replacement task runs as a new process', started(2), 90_000);
    expect(pidAlive(second!)).toBe(true);
    const tasks = await eventually('the first task is failed and its replacement runs', async () => {
      const now = await sleeperTasks();
      return now.length === 2 && now.some((t) => t.Status.State === 'running') ? now : undefined;
    }, 30_000);
    expect(tasks.map((t) => `${t.DesiredState} ${t.Status.State}`).sort()).toEqual(['running running', 'shutdown failed']);
    expect(tasks.find((t) => t.Status.State === 'failed')?.Status.Err).toBe('the agent restarted and the task did not survive it');
    // What the first task wrote outlived the agent that ran it: the restarted one read it back from its state dir.
    const logs = await eventually('both tasks\' output in docker service logs', async () => {
      const result = await cluster.docker(['service', 'logs', 'sleeper']);
      return result.stdout.includes(`started ${first}`) && result.stdout.includes(`started ${second}`) ? result.stdout : undefined;
    }, 30_000);
    expect(logs.trim().split('\n')).toHaveLength(2);
    await agent.stop();
    expect(pidAlive(second!)).toBe(false);
  });
});

/** A record of the audit surface, as far as these checks read it. */
interface AuditRecord {
  readonly offset: number;
  readonly type?: string;
  readonly by?: string;
  readonly verdict: { readonly status: string };
  readonly data: { readonly tasks: readonly { readonly id: string }[]; readonly component?: string; readonly term?: number };
}

/** The term a record was written under (`by` is component/instance@term). */
const termIn = (record: AuditRecord): number => Number(record.by?.split('@')[1]);

/** Every TasksAssigned and OwnershipTaken on the log, with its verdict, from the audit surface. */
const scheduling = async (socket: string): Promise<AuditRecord[]> => {
  const records: AuditRecord[] = [];
  for (const type of ['TasksAssigned', 'OwnershipTaken']) {
    for (let from: number | null = 0; from !== null; ) {
      const page: { body: { next: number | null; records: AuditRecord[] } } = await dockerApi(socket, 'GET', `/shoal/v1/audit/events?type=${type}&from=${from}&limit=1000`);
      records.push(...page.body.records);
      from = page.body.next;
    }
  }
  return records.sort((a, b) => a.offset - b.offset);
};
