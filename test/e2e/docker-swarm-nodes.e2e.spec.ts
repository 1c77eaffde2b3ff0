/**
 * The real docker CLI (v28, unmodified) against the API: the swarm and its nodes. The API
 * runs in this process on an embedded log; the docker binary is a separate process,
 * talking to the unix socket (and once over TCP with a bearer token from its config's
 * HttpHeaders). Nodes are registered by appending NodeRegistered, as the dispatcher does.
 */
import { LOG_LEVEL, TaskState } from '@shoal/contracts';
import type { EventOf } from '@shoal/contracts';
import type { Cluster } from '@shoal/domain';
import { dockerOutput, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';

const AUDITOR = 'auditor-token-for-the-docker-cli';
const N1 = 'n1aaaaaaaaaaaaaaaaaaaaaaa';
const N2 = 'n2bbbbbbbbbbbbbbbbbbbbbbb';

describe('docker swarm and docker node, against Shoal', () => {
  let api: ApiHarness;
  const docker = async (...args: string[]) => dockerOutput(args, await api.docker(args));
  const register = (id: string, hostname: string): EventOf<'NodeRegistered'> =>
    api.events.event('NodeRegistered', { id, description: nodeDescription(hostname), role: 'worker', addr: '127.0.0.1' });

  beforeAll(async () => {
    api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor' }], logLevel: LOG_LEVEL });
    await api.append(register(N1, 'node-1'), register(N2, 'node-2'));
  });
  afterAll(() => api.close());

  it('docker info shows an active swarm and its cluster', async () => {
    const info = JSON.parse(await docker('info', '--format', '{{json .Swarm}}')) as { LocalNodeState: string; ControlAvailable: boolean; Nodes: number; Cluster: { ID: string } };
    expect(info).toMatchObject({ LocalNodeState: 'active', ControlAvailable: true, Nodes: 2, Cluster: { ID: api.cluster } });
    expect(await docker('info')).toMatch(/Swarm: active[\s\S]*Is Manager: true[\s\S]*Task History Retention Limit: 5/);
  });

  it('docker node ls and inspect show the registered nodes', async () => {
    const ls = await docker('node', 'ls', '--format', '{{.ID}} {{.Hostname}} {{.Status}} {{.Availability}}');
    expect(ls.trim().split('\n').sort()).toEqual([`${N1} node-1 Ready Active`, `${N2} node-2 Ready Active`]);
    expect(await docker('node', 'ls', '--filter', 'name=node-2', '--format', '{{.Hostname}}')).toBe('node-2\n');
    const [inspected] = JSON.parse(await docker('node', 'inspect', 'node-1')) as { ID: string; Description: { Hostname: string; Resources: { NanoCPUs: number } } }[];
    expect(inspected).toMatchObject({ ID: N1, Description: { Hostname: 'node-1', Resources: { NanoCPUs: 4e9 } } });
  });

  it('docker node update --availability drain --label-add changes the spec on the log', async () => {
    expect(await docker('node', 'update', '--availability', 'drain', '--label-add', 'zone=east', 'node-1')).toBe('node-1\n');
    const node = api.view.state.nodes.get(N1)!;
    expect(node.spec).toMatchObject({ availability: 'drain', labels: { zone: 'east' } });
    expect(node.version).toBe(2);
    expect(await docker('node', 'inspect', '--format', '{{.Spec.Availability}} {{index .Spec.Labels "zone"}}', N1)).toBe('drain east\n');
  });

  it('docker node rm refuses a node that is not down, removes it once down', async () => {
    const refused = await api.docker(['node', 'rm', 'node-2']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not down and can't be removed/);
    await api.append(api.events.event('NodeStatusChanged', { nodes: [{ id: N2, state: 'down' }] }));
    expect(await docker('node', 'rm', 'node-2')).toBe('node-2\n');
    expect(api.view.state.nodes.has(N2)).toBe(false);
  });

  it('docker node rm --force of a node running a task: the task is orphaned, and docker service ls no longer counts it, as Docker does', async () => {
    const N3 = 'n3ccccccccccccccccccccccc';
    const spec = serviceSpec('lonely', { kind: 'replicated', replicas: 1 });
    await api.append(
      register(N3, 'node-3'),
      api.events.event('ServiceCreated', { id: 's-lonely', spec }),
      api.events.event('TasksCreated', { tasks: [newTask('lonely1', 's-lonely', spec)] }),
      api.events.event('TasksAllocated', { tasks: [{ id: 'lonely1', attachments: [] }] }),
      api.events.event('TasksAssigned', { tasks: [{ id: 'lonely1', nodeId: N3, why: 'test' }] }),
      api.events.event('TaskStatusesReported', { nodeId: N3, statuses: [{ id: 'lonely1', state: TaskState.RUNNING, at: api.events.now() }] }),
    );
    expect(await docker('service', 'ls', '--filter', 'name=lonely', '--format', '{{.Replicas}}')).toBe('1/1\n');
    expect(await docker('node', 'rm', '--force', 'node-3')).toBe('node-3\n');
    expect(await docker('service', 'ls', '--filter', 'name=lonely', '--format', '{{.Replicas}}')).toBe('0/1\n');
    expect(await docker('service', 'ps', '--format', '{{.Name}} {{.CurrentState}}', 'lonely')).toMatch(/^lonely\.1 Orphaned /);
    await docker('service', 'rm', 'lonely');
  });

  it('docker swarm join-token worker prints the token and the join address; --rotate replaces it', async () => {
    const before = api.view.state.cluster!.tokens.worker;
    expect(await docker('swarm', 'join-token', 'worker')).toContain(`docker swarm join --token ${before} 127.0.0.1:2377`);
    expect(await docker('swarm', 'join-token', '-q', 'worker')).toBe(`${before}\n`);
    expect(await docker('swarm', 'join-token', '--rotate', 'worker')).toMatch(/Successfully rotated worker join token/);
    const after = (api.view.state.cluster as Cluster).tokens;
    expect(after.worker).not.toBe(before);
    expect(after.worker).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    expect(await docker('swarm', 'join-token', '-q', 'worker')).toBe(`${after.worker}\n`);
  });

  it('docker swarm update --task-history-limit and --dispatcher-heartbeat change the cluster spec', async () => {
    expect(await docker('swarm', 'update', '--task-history-limit', '2')).toMatch(/Swarm updated/);
    expect(api.view.state.cluster!.spec.orchestration.taskHistoryRetentionLimit).toBe(2);
    expect(await docker('info', '--format', '{{.Swarm.Cluster.Spec.Orchestration.TaskHistoryRetentionLimit}}')).toBe('2\n');
    await docker('swarm', 'update', '--dispatcher-heartbeat', '10s');
    expect(api.view.state.cluster!.spec.dispatcher.heartbeatPeriodMs).toBe(10_000);
    expect(api.view.state.cluster!.spec.orchestration.taskHistoryRetentionLimit).toBe(2);
  });

  it('docker node inspect self answers the control plane\'s manager; promote and demote change the role', async () => {
    expect(await docker('node', 'inspect', '--format', '{{.Spec.Role}} {{.ManagerStatus.Leader}} {{.ManagerStatus.Addr}}', 'self')).toBe('manager true 127.0.0.1:2377\n');
    expect(await docker('node', 'promote', 'node-1')).toMatch(/promoted to a manager/);
    expect(await docker('node', 'ls', '--filter', 'role=manager', '--format', '{{.Hostname}} {{.ManagerStatus}}')).toBe('node-1 Reachable\n');
    await docker('node', 'demote', 'node-1');
    expect(api.view.state.nodes.get(N1)!.spec.role).toBe('worker');
  });

  it('works over TCP with the admin token in the CLI config, and refuses an auditor\'s write', async () => {
    const ls = await api.docker(['node', 'ls', '--format', '{{.Hostname}}'], { token: api.adminToken });
    expect(ls).toMatchObject({ code: 0, stdout: 'node-1\n' });
    const read = await api.docker(['node', 'ls', '--format', '{{.Hostname}}'], { token: AUDITOR });
    expect(read).toMatchObject({ code: 0, stdout: 'node-1\n' });
    const write = await api.docker(['node', 'update', '--availability', 'active', 'node-1'], { token: AUDITOR });
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/forbidden: role auditor/);
    const anonymous = await api.docker(['node', 'ls'], { token: 'wrong-token-wrong-token' });
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/invalid token/);
  });
});
