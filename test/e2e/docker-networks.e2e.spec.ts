/**
 * The real docker CLI (v28, unmodified) against the API: `docker network create -d overlay`,
 * `ls`, `inspect`, `rm`. The API runs in this process on an embedded log; the docker
 * binary is a separate process talking to its unix socket.
 */
import { LOG_LEVEL, TaskState } from '@shoal/contracts';
import { dockerOutput, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';

const AUDITOR = 'auditor-token-for-docker-network';

describe('docker network, against Shoal', () => {
  let api: ApiHarness;

  beforeAll(async () => {
    api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor' }], logLevel: LOG_LEVEL });
  });
  afterAll(() => api.close());

  const docker = async (...args: string[]) => dockerOutput(args, await api.docker(args));

  it('docker network create -d overlay writes NetworkCreated and prints the id', async () => {
    const id = (await docker('network', 'create', '-d', 'overlay', '--subnet', '10.0.9.0/24', '--gateway', '10.0.9.1', '--label', 'tier=db', 'backend')).trim();
    expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect(api.view.state.networks.get(id)?.spec).toMatchObject({ name: 'backend', driver: 'overlay', ipam: [{ subnet: '10.0.9.0/24', gateway: '10.0.9.1' }] });
    await docker('network', 'create', '--driver', 'overlay', '--attachable', 'frontend');
  });

  it('docker network ls and inspect show them', async () => {
    const ls = await docker('network', 'ls', '--format', '{{.Name}} {{.Driver}} {{.Scope}}');
    expect(ls.trim().split('\n').sort()).toEqual(['backend overlay swarm', 'frontend overlay swarm']);
    expect(await docker('network', 'ls', '--filter', 'label=tier=db', '--format', '{{.Name}}')).toBe('backend\n');
    expect(await docker('network', 'inspect', '--format', '{{.Driver}} {{.Scope}} {{(index .IPAM.Config 0).Subnet}} {{.Attachable}}', 'backend')).toBe('overlay swarm 10.0.9.0/24 false\n');
    expect(await docker('network', 'inspect', '--format', '{{.Attachable}}', 'frontend')).toBe('true\n');
  });

  it('docker network create refuses a duplicate name and a bridge network', async () => {
    const duplicate = await api.docker(['network', 'create', '-d', 'overlay', 'backend']);
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toMatch(/network with name backend already exists/);
    const bridge = await api.docker(['network', 'create', 'plain']);
    expect(bridge.code).not.toBe(0);
    expect(bridge.stderr).toMatch(/driver "bridge" is not supported/);
  });

  it('docker network rm refuses a network in use, removes it once unused', async () => {
    const web = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { task: { container: { image: 'nginx' }, networks: [{ target: 'frontend' }] } });
    await api.append(api.events.event('ServiceCreated', { id: 's1', spec: web }, { instance: 'another-api' }));
    const refused = await api.docker(['network', 'rm', 'frontend']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/network frontend is in use by service web/);
    expect(await docker('network', 'rm', 'backend')).toBe('backend\n');
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim()).toBe('frontend');
  });

  it('docker network prune -f removes the networks no service uses', async () => {
    await docker('network', 'create', '-d', 'overlay', 'scratch');
    const out = await docker('network', 'prune', '-f');
    expect(out).toMatch(/Deleted Networks:\s*scratch/);
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim()).toBe('frontend');
  });

  it('over TCP, an auditor lists networks but may not create or remove one', async () => {
    const ls = await api.docker(['network', 'ls', '--format', '{{.Name}}'], { token: AUDITOR });
    expect(ls).toMatchObject({ code: 0, stdout: 'frontend\n' });
    const create = await api.docker(['network', 'create', '-d', 'overlay', 'audited'], { token: AUDITOR });
    expect(create.code).not.toBe(0);
    expect(create.stderr).toMatch(/forbidden: role auditor may not POST \/networks\/create/);
    const rm = await api.docker(['network', 'rm', 'frontend'], { token: AUDITOR });
    expect(rm.stderr).toMatch(/forbidden: role auditor may not DELETE/);
    expect((await api.docker(['network', 'ls', '-q'], { token: 'not-a-token' })).stderr).toMatch(/invalid token/);
  });

  it('docker network rm right after docker service rm removes it while the service\'s task still runs, as Docker does', async () => {
    const frontend = [...api.view.state.networks.values()].find((network) => network.spec.name === 'frontend')!;
    const web = api.view.state.services.get('s1')!;
    await api.append(
      api.events.event('NodeRegistered', { id: 'node1', description: nodeDescription('node-1'), role: 'worker', addr: '127.0.0.1' }),
      api.events.event('NetworkAllocated', { id: frontend.id, subnet: '10.0.8.0/24', gateway: '10.0.8.1' }),
      api.events.event('TasksCreated', { tasks: [newTask('t1', web.id, web.spec)] }),
      api.events.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [{ network: frontend.id, addresses: ['10.0.8.2/24'] }] }] }),
      api.events.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'node1', why: 'test' }] }),
      api.events.event('TaskStatusesReported', { nodeId: 'node1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: api.events.now() }] }),
    );
    expect(await docker('service', 'rm', 'web')).toBe('web\n');
    expect(await docker('network', 'rm', 'frontend')).toBe('frontend\n');
    expect(api.view.state.tasks.get('t1')?.status.state).toBe(TaskState.RUNNING);
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim()).toBe('');
  });
});
