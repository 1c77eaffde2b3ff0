/**
 * `docker info`, `docker swarm` and `docker node`, as a user types them, over the socket
 * and over TCP with a bearer token from the CLI config's HttpHeaders. On either system
 * (system-under-test.ts); the nodes are node-1 and spare-1, and late-1 joins for one story;
 * the control plane is listed beside them, as the leader.
 * It drains node-1, removes spare-1 and changes the cluster spec: it runs last where the
 * system is shared.
 */
import { createHash } from 'node:crypto';
import { dockerOutput } from '@shoal/testing';
import { AUDITOR, NODE_1, SPARE } from './system-under-test';
import type { SystemHandle } from './system-under-test';

const LATE = 'late-1';

export const dockerSwarmNodeScenarios = (system: SystemHandle): void => {
  const docker = async (...args: string[]) => dockerOutput(args, await system.current.docker(args));
  const node = async (hostname: string) => (await system.current.state()).nodes.get(system.current.nodeId(hostname));

  it('docker info shows an active swarm and its cluster', async () => {
    const info = JSON.parse(await docker('info', '--format', '{{json .Swarm}}')) as { LocalNodeState: string; ControlAvailable: boolean; Nodes: number; Cluster: { ID: string } };
    // The two agents' nodes and the control plane, as `docker node ls` lists them.
    expect(info).toMatchObject({ LocalNodeState: 'active', ControlAvailable: true, Nodes: 3, Cluster: { ID: system.current.cluster } });
    expect(await docker('info')).toMatch(/Swarm: active[\s\S]*Is Manager: true[\s\S]*Task History Retention Limit: 5/);
  });

  it('docker node ls and inspect show the registered nodes and the control plane, drained', async () => {
    const [n1, spare, leader] = [system.current.nodeId(NODE_1), system.current.nodeId(SPARE), (await docker('info', '--format', '{{.Swarm.NodeID}}')).trim()];
    const ls = await docker('node', 'ls', '--format', '{{.ID}} {{.Hostname}} {{.Status}} {{.Availability}}');
    expect(ls.trim().split('\n').sort()).toEqual([`${n1} ${NODE_1} Ready Active`, `${spare} ${SPARE} Ready Active`, `${leader} shoal-manager Ready Drain`].sort());
    expect(await docker('node', 'ls', '--filter', `name=${SPARE}`, '--format', '{{.Hostname}}')).toBe(`${SPARE}\n`);
    const [inspected] = JSON.parse(await docker('node', 'inspect', NODE_1)) as { ID: string; Description: { Hostname: string; Resources: { NanoCPUs: number } } }[];
    expect(inspected).toMatchObject({ ID: n1, Description: { Hostname: NODE_1, Resources: { NanoCPUs: 4e9 } } });
  });

  it('docker node update --availability drain --label-add changes the spec on the log', async () => {
    const before = (await node(NODE_1))!.version;
    expect(await docker('node', 'update', '--availability', 'drain', '--label-add', 'zone=east', NODE_1)).toBe(`${NODE_1}\n`);
    const after = (await node(NODE_1))!;
    expect(after.spec).toMatchObject({ availability: 'drain', labels: { zone: 'east' } });
    expect(after.version).toBe(before + 1);
    expect(await docker('node', 'inspect', '--format', '{{.Spec.Availability}} {{index .Spec.Labels "zone"}}', system.current.nodeId(NODE_1))).toBe('drain east\n');
  });

  it('docker node rm refuses a node that is not down, removes it once down', async () => {
    const spare = system.current.nodeId(SPARE);
    const refused = await system.current.docker(['node', 'rm', SPARE]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/is not down and can't be removed/);
    await system.current.nodeDown(SPARE);
    expect(await docker('node', 'rm', SPARE)).toBe(`${SPARE}\n`);
    expect((await system.current.state()).nodes.has(spare)).toBe(false);
  });

  it('docker node rm --force of a node running a task: the task is orphaned, and docker service ls no longer counts it, as Docker does', async () => {
    await system.current.addNode(LATE);
    await docker('service', 'create', '--detach', '--name', 'lonely', '--constraint', `node.hostname==${LATE}`, 'nginx:1.27');
    await system.current.tasksRun('lonely', { replicas: 1, running: 1, node: LATE });
    expect(await docker('service', 'ls', '--filter', 'name=lonely', '--format', '{{.Replicas}}')).toBe('1/1\n');
    expect(await docker('node', 'rm', '--force', LATE)).toBe(`${LATE}\n`);
    await system.current.forgetNode(LATE);
    expect(await docker('service', 'ls', '--filter', 'name=lonely', '--format', '{{.Replicas}}')).toBe('0/1\n');
    // The orchestrator may have given the slot a task in its place, which no node admits: the orphan is then its history.
    expect(await docker('service', 'ps', '--format', '{{.Name}} {{.CurrentState}}', 'lonely')).toMatch(/^(\\_ )?lonely\.1 Orphaned /m);
    await docker('service', 'rm', 'lonely');
  });

  it('docker swarm join-token worker prints the token and the join address; --rotate replaces it; the log holds only its hash and the token sealed', async () => {
    const before = (await docker('swarm', 'join-token', '-q', 'worker')).trim();
    expect(before).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    expect(await docker('swarm', 'join-token', 'worker')).toContain(`docker swarm join --token ${before} 127.0.0.1:2377`);
    const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
    expect((await system.current.state()).cluster!.tokens.worker).toEqual({ digest: before.split('-')[2], hash: sha256(before), sealed: expect.any(String) });
    expect(await docker('swarm', 'join-token', '--rotate', 'worker')).toMatch(/Successfully rotated worker join token/);
    const after = (await docker('swarm', 'join-token', '-q', 'worker')).trim();
    expect(after).not.toBe(before);
    expect(after).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    const kept = (await system.current.state()).cluster!.tokens.worker;
    expect(kept).toMatchObject({ hash: sha256(after) });
    expect(JSON.stringify(kept)).not.toContain(after.split('-')[3]);
  });

  it('docker swarm update --task-history-limit and --dispatcher-heartbeat change the cluster spec', async () => {
    expect(await docker('swarm', 'update', '--task-history-limit', '2')).toMatch(/Swarm updated/);
    expect((await system.current.state()).cluster!.spec.orchestration.taskHistoryRetentionLimit).toBe(2);
    expect(await docker('info', '--format', '{{.Swarm.Cluster.Spec.Orchestration.TaskHistoryRetentionLimit}}')).toBe('2\n');
    await docker('swarm', 'update', '--dispatcher-heartbeat', '10s');
    const cluster = (await system.current.state()).cluster!;
    expect(cluster.spec.dispatcher.heartbeatPeriodMs).toBe(10_000);
    expect(cluster.spec.orchestration.taskHistoryRetentionLimit).toBe(2);
  });

  it('docker swarm update --cert-expiry sets how long node certificates last; under an hour is refused in SwarmKit\'s words', async () => {
    expect(await docker('swarm', 'update', '--cert-expiry', '2h')).toMatch(/Swarm updated/);
    expect((await system.current.state()).cluster!.spec.ca).toEqual({ nodeCertExpiryMs: 7_200_000 });
    expect(await docker('info', '--format', '{{.Swarm.Cluster.Spec.CAConfig.NodeCertExpiry}}')).toBe('2h0m0s\n');
    const refused = await system.current.docker(['swarm', 'update', '--cert-expiry', '30m']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/minimum certificate expiry time is: 1h0m0s/);
    expect(await docker('swarm', 'update', '--cert-expiry', '2160h')).toMatch(/Swarm updated/);
    expect((await system.current.state()).cluster!.spec).not.toHaveProperty('ca');
  });

  it('docker node inspect self answers the control plane\'s manager; promote and demote change the role', async () => {
    expect(await docker('node', 'inspect', '--format', '{{.Spec.Role}} {{.ManagerStatus.Leader}} {{.ManagerStatus.Addr}}', 'self')).toBe('manager true 127.0.0.1:2377\n');
    expect(await docker('node', 'promote', NODE_1)).toMatch(/promoted to a manager/);
    expect(await docker('node', 'ls', '--filter', 'role=manager', '--format', '{{.Hostname}} {{.ManagerStatus}}')).toBe(`${NODE_1} Reachable\nshoal-manager Leader\n`);
    expect(await docker('node', 'ls', '--filter', 'role=worker', '--format', '{{.Hostname}}')).not.toMatch(/shoal-manager/);
    await docker('node', 'demote', NODE_1);
    expect((await node(NODE_1))!.spec.role).toBe('worker');
  });

  it('docker node ls marks the control plane, the leader, as the node it talks to; demoting or removing it is refused as Docker refuses its last manager', async () => {
    const leader = (await docker('info', '--format', '{{.Swarm.NodeID}}')).trim();
    expect(await docker('node', 'ls', '--filter', 'name=shoal-manager')).toMatch(new RegExp(`^${leader} \\*\\s+shoal-manager\\s+Ready\\s+Drain\\s+Leader\\s`, 'm'));
    const demoted = await system.current.docker(['node', 'demote', leader]);
    expect(demoted.code).not.toBe(0);
    expect(demoted.stderr).toMatch(/attempting to demote the last manager of the swarm/);
    const removed = await system.current.docker(['node', 'rm', '--force', 'shoal-manager']);
    expect(removed.code).not.toBe(0);
    expect(removed.stderr).toMatch(/is a cluster manager and is a member of the raft cluster\. It must be demoted to worker before removal/);
    expect(await docker('node', 'update', '--availability', 'drain', leader)).toBe(`${leader}\n`);
    expect(await docker('node', 'inspect', '--format', '{{.Spec.Role}} {{.Spec.Availability}}', 'self')).toBe('manager drain\n');
  });

  it('works over TCP with the admin token in the CLI config, and refuses an auditor\'s write', async () => {
    const ls = await system.current.docker(['node', 'ls', '--format', '{{.Hostname}}'], { token: system.current.adminToken });
    expect(ls).toMatchObject({ code: 0, stdout: `${NODE_1}\nshoal-manager\n` });
    const read = await system.current.docker(['node', 'ls', '--format', '{{.Hostname}}'], { token: AUDITOR });
    expect(read).toMatchObject({ code: 0, stdout: `${NODE_1}\nshoal-manager\n` });
    const write = await system.current.docker(['node', 'update', '--availability', 'active', NODE_1], { token: AUDITOR });
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/forbidden: role auditor/);
    const anonymous = await system.current.docker(['node', 'ls'], { token: 'wrong-token-wrong-token' });
    expect(anonymous.code).not.toBe(0);
    expect(anonymous.stderr).toMatch(/invalid token/);
  });
};
