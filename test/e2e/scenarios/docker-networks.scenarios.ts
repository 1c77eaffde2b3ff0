/**
 * `docker network create -d overlay`, `ls`, `inspect`, `rm`, `prune`, as a user types
 * them, over the socket and over TCP as an auditor; a network a service uses, and one whose
 * service was just removed. On either system (system-under-test.ts).
 */
import { TaskState } from '@shoal/contracts';
import { dockerOutput } from '@shoal/testing';
import { AUDITOR, NODE_1 } from './system-under-test';
import type { SystemHandle } from './system-under-test';

export const dockerNetworkScenarios = (system: SystemHandle): void => {
  const docker = async (...args: string[]) => dockerOutput(args, await system.current.docker(args));
  const networkNamed = async (name: string) => [...(await system.current.state()).networks.values()].find((network) => network.spec.name === name);

  it('docker network create -d overlay writes NetworkCreated and prints the id', async () => {
    const id = (await docker('network', 'create', '-d', 'overlay', '--subnet', '10.0.9.0/24', '--gateway', '10.0.9.1', '--label', 'tier=db', 'backend')).trim();
    expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect((await system.current.state()).networks.get(id)?.spec).toMatchObject({ name: 'backend', driver: 'overlay', ipam: [{ subnet: '10.0.9.0/24', gateway: '10.0.9.1' }] });
    await docker('network', 'create', '--driver', 'overlay', '--attachable', 'frontend');
  });

  it('docker network ls and inspect show them', async () => {
    const ls = await docker('network', 'ls', '--format', '{{.Name}} {{.Driver}} {{.Scope}}');
    // As on an engine in swarm mode, the ingress network is there from the start (the allocator makes it).
    expect(ls.trim().split('\n').sort()).toEqual(['backend overlay swarm', 'frontend overlay swarm', 'ingress overlay swarm']);
    expect(await docker('network', 'ls', '--filter', 'label=tier=db', '--format', '{{.Name}}')).toBe('backend\n');
    expect(await docker('network', 'inspect', '--format', '{{.Driver}} {{.Scope}} {{(index .IPAM.Config 0).Subnet}} {{.Attachable}}', 'backend')).toBe('overlay swarm 10.0.9.0/24 false\n');
    expect(await docker('network', 'inspect', '--format', '{{.Attachable}}', 'frontend')).toBe('true\n');
  });

  it('docker network create refuses a duplicate name and a bridge network', async () => {
    const duplicate = await system.current.docker(['network', 'create', '-d', 'overlay', 'backend']);
    expect(duplicate.code).not.toBe(0);
    expect(duplicate.stderr).toMatch(/network with name backend already exists/);
    const bridge = await system.current.docker(['network', 'create', 'plain']);
    expect(bridge.code).not.toBe(0);
    expect(bridge.stderr).toMatch(/driver "bridge" is not supported/);
  });

  it('docker network rm refuses a network in use, removes it once unused', async () => {
    await docker('service', 'create', '--detach', '--name', 'web', '--network', 'frontend', '--constraint', `node.hostname==${NODE_1}`, 'nginx');
    const refused = await system.current.docker(['network', 'rm', 'frontend']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/network frontend is in use by service web/);
    expect(await docker('network', 'rm', 'backend')).toBe('backend\n');
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort()).toEqual(['frontend', 'ingress']);
  });

  it('docker network prune -f removes the networks no service uses', async () => {
    await docker('network', 'create', '-d', 'overlay', 'scratch');
    const out = await docker('network', 'prune', '-f');
    expect(out).toMatch(/Deleted Networks:\s*scratch/);
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort()).toEqual(['frontend', 'ingress']);
  });

  it('over TCP, an auditor lists networks but may not create or remove one', async () => {
    const ls = await system.current.docker(['network', 'ls', '--format', '{{.Name}}'], { token: AUDITOR });
    expect(ls).toMatchObject({ code: 0, stdout: expect.stringMatching(/^(frontend\ningress|ingress\nfrontend)\n$/) });
    const create = await system.current.docker(['network', 'create', '-d', 'overlay', 'audited'], { token: AUDITOR });
    expect(create.code).not.toBe(0);
    expect(create.stderr).toMatch(/forbidden: role auditor may not POST \/networks\/create/);
    const rm = await system.current.docker(['network', 'rm', 'frontend'], { token: AUDITOR });
    expect(rm.stderr).toMatch(/forbidden: role auditor may not DELETE/);
    expect((await system.current.docker(['network', 'ls', '-q'], { token: 'not-a-token' })).stderr).toMatch(/invalid token/);
  });

  it('docker network rm right after docker service rm removes it while the service\'s task may still run, as Docker does', async () => {
    const frontend = (await networkNamed('frontend'))!;
    const { running } = await system.current.tasksRun('web', { replicas: 1, running: 1, node: NODE_1 });
    const [task] = running;
    // The task holds an address on the network, given by the allocator.
    const attachments = (await system.current.state()).tasks.get(task!)?.attachments;
    expect(attachments).toEqual([expect.objectContaining({ network: frontend.id, addresses: [expect.stringMatching(/^\d+\.\d+\.\d+\.\d+\/\d+$/)] })]);
    expect(await docker('service', 'rm', 'web')).toBe('web\n');
    expect(await docker('network', 'rm', 'frontend')).toBe('frontend\n');
    // Written by the test, the task still runs there; real agents may have stopped it already.
    if (system.kind === 'in-process') expect((await system.current.state()).tasks.get(task!)?.status.state).toBe(TaskState.RUNNING);
    expect((await docker('network', 'ls', '--format', '{{.Name}}')).trim()).toBe('ingress');
  });
};
