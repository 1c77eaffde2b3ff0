import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
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
// active scheduler dies and its standby places the next tasks; the log audits clean.
describe('Shoal as separate processes on Kafka', () => {
  let deployment: ShoalProcesses;
  beforeAll(() => {
    deployment = ShoalProcesses.onKafka('e2e', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  });
  afterAll(() => deployment?.close());

  it('runs a service, moves the tasks of a dead agent, survives the loss of the active scheduler, and audits clean', async () => {
    const cluster = await ShoalCluster.start(deployment, { schedulers: 2 });
    const socket = cluster.socket;
    // Two schedulers: one active, the other standing by.
    const states = await Promise.all(cluster.instances('scheduler').map(async (s) => ({ s, state: (await cluster.health(s)).state })));
    const active = states.find((x) => x.state === 'active')!.s;
    const standby = states.find((x) => x.state === 'standby')!.s;

    await cluster.agent('alpha-');
    const beta = await cluster.agent('beta-');
    const nodes = await eventually('four nodes are ready', async () => {
      const { body } = await dockerApi<DockerNode[]>(socket, 'GET', '/nodes');
      return body.filter((n) => n.Status.State === 'ready').length === 4 ? body : undefined;
    }, 90_000);
    const betaNodes = new Set(nodes.filter((n) => n.Description.Hostname.startsWith('beta-')).map((n) => n.ID));
    expect(betaNodes.size).toBe(2);

    const created = await dockerApi(socket, 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' }, RestartPolicy: { Condition: 'any', Delay: 0 } },
      Mode: { Replicated: { Replicas: 4 } },
    });
    expect(created.status).toBe(201);
    const runningTasks = (count: number, accept: (t: DockerTask) => boolean = () => true) => async (): Promise<DockerTask[] | undefined> => {
      const { body } = await dockerApi<DockerTask[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`);
      const up = body.filter((t) => t.Status.State === 'running');
      return up.length === count && up.every(accept) ? up : undefined;
    };
    const spread = await eventually('four tasks run, one per node', runningTasks(4), 90_000);
    expect(new Set(spread.map((t) => t.NodeID)).size).toBe(4);

    // An agent process dies: its two nodes go DOWN and their tasks are replaced on the others.
    await beta.crash();
    await eventually('the dead agent\'s nodes are down', async () => {
      const { body } = await dockerApi<DockerNode[]>(socket, 'GET', '/nodes');
      return body.filter((n) => betaNodes.has(n.ID)).every((n) => n.Status.State === 'down') ? true : undefined;
    }, 60_000);
    await eventually('four tasks run on the live nodes', runningTasks(4, (t) => !betaNodes.has(t.NodeID ?? '')), 90_000);

    // The active scheduler dies: the standby takes the next term and places new tasks.
    expect((await cluster.health(active)).state).toBe('active');
    expect((await cluster.health(standby)).state).toBe('standby');
    await active.process.crash();
    const taken = await eventually('the standby scheduler is active', async () => {
      const h = await cluster.health(standby);
      return h.state === 'active' ? h : undefined;
    }, 90_000);
    expect(taken.term).toBe(2);
    const web = await dockerApi<{ ID: string; Version: { Index: number }; Spec: Record<string, unknown> }>(socket, 'GET', '/services/web');
    const scaled = await dockerApi(socket, 'POST', `/v1.47/services/${web.body.ID}/update?version=${web.body.Version.Index}`, { ...web.body.Spec, Mode: { Replicated: { Replicas: 6 } } });
    expect(scaled.status).toBe(200);
    await eventually('six tasks run', runningTasks(6, (t) => !betaNodes.has(t.NodeID ?? '')), 90_000);

    const verify = await runShoalCli(['audit', 'verify', '--json'], deployment.env, 120_000);
    expect(verify.code).toBe(0);
    const report = JSON.parse(verify.stdout) as { agree: boolean; tally: { poison: number } };
    expect(report.agree).toBe(true);
    expect(report.tally.poison).toBe(0);
  });
});
