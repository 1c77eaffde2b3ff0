/**
 * Docker's /nodes over HTTP, in this process on an embedded log: the control plane is the
 * swarm's leader, listed, filtered and looked up as any node, and refused what SwarmKit
 * refuses its lone leader; registered managers are reachable, not leaders.
 */
import { nodeDescription } from '@shoal/testing';
import type { DockerNode } from '@shoal/docker-api';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';
import { controlPlaneNodeId } from './control-plane-node';

describe("Docker's /nodes", () => {
  let api: ApiHarness;
  let leader: string;
  const get = async <T>(path: string): Promise<T> => {
    const answer = await api.request('GET', path, { socket: true });
    expect(answer.status).toBe(200);
    return answer.body as T;
  };
  const listed = async (filters?: object): Promise<string[]> =>
    (await get<DockerNode[]>(filters ? `/nodes?filters=${encodeURIComponent(JSON.stringify(filters))}` : '/nodes')).map((node) => node.Description.Hostname);

  beforeAll(async () => {
    api = await startApi();
    leader = controlPlaneNodeId(api.cluster);
  });
  afterAll(() => api.close());

  it("a fresh swarm lists its one manager, the control plane: /info's NodeID, the leader, reachable at the join address, drained", async () => {
    const info = await get<{ Swarm: { NodeID: string } }>('/info');
    const nodes = await get<DockerNode[]>('/nodes');
    expect(nodes).toEqual([
      expect.objectContaining({
        ID: info.Swarm.NodeID,
        Spec: { Labels: {}, Role: 'manager', Availability: 'drain' },
        Description: expect.objectContaining({ Hostname: 'shoal-manager' }),
        Status: { State: 'ready', Addr: '127.0.0.1' },
        ManagerStatus: { Leader: true, Reachability: 'reachable', Addr: '127.0.0.1:2377' },
      }),
    ]);
    expect(await get<DockerNode>(`/nodes/${leader}`)).toEqual(nodes[0]);
  });

  describe('with a worker and a manager registered, one of them down', () => {
    beforeAll(async () => {
      const b = api.events;
      await api.append(
        b.event('NodeRegistered', { id: 'w1', role: 'worker', description: nodeDescription('worker-1', { engine: { version: '28.2.2', labels: { disk: 'ssd' } } }) }),
        b.event('NodeRegistered', { id: 'm1', role: 'manager', description: nodeDescription('manager-1') }),
        b.event('NodeRegistered', { id: 'm2', role: 'manager', description: nodeDescription('manager-2') }),
        b.event('NodeStatusChanged', { nodes: [{ id: 'w1', state: 'ready' }, { id: 'm1', state: 'ready' }, { id: 'm2', state: 'down' }] }),
      );
    });

    it('lists the control plane first, the only leader; registered managers are reachable while ready, with no Leader key (Docker leaves a false one out)', async () => {
      const nodes = await get<DockerNode[]>('/nodes');
      expect(nodes.map((node) => [node.Description.Hostname, node.ManagerStatus && 'Leader' in node.ManagerStatus ? node.ManagerStatus.Leader : 'no Leader', node.ManagerStatus?.Reachability])).toEqual([
        ['shoal-manager', true, 'reachable'],
        ['worker-1', 'no Leader', undefined],
        ['manager-1', 'no Leader', 'reachable'],
        ['manager-2', 'no Leader', 'unreachable'],
      ]);
    });

    it('applies every filter to the control plane as to any node', async () => {
      expect(await listed({ role: ['manager'] })).toEqual(['shoal-manager', 'manager-1', 'manager-2']);
      expect(await listed({ role: ['worker'] })).toEqual(['worker-1']);
      expect(await listed({ membership: ['accepted'] })).toEqual(['shoal-manager', 'worker-1', 'manager-1', 'manager-2']);
      expect(await listed({ membership: ['pending'] })).toEqual([]);
      expect(await listed({ name: ['shoal'] })).toEqual(['shoal-manager']);
      expect(await listed({ id: [leader.slice(0, 6)] })).toEqual(['shoal-manager']);
      expect(await listed({ id: ['m'] })).toEqual(['manager-1', 'manager-2']);
      expect(await listed({ label: ['disk=ssd'] })).toEqual(['worker-1']);
      expect(await listed({ 'node.label': ['rack'] })).toEqual([]);
    });

    it('updates a registered node, answering 200 as Docker does', async () => {
      const answer = await api.request('POST', '/nodes/worker-1/update?version=1', { socket: true, body: { Labels: { zone: 'east' }, Role: 'worker', Availability: 'active' } });
      expect(answer.status).toBe(200);
      expect(await listed({ 'node.label': ['zone=east'] })).toEqual(['worker-1']);
    });

    it('finds the control plane by hostname and by id prefix', async () => {
      expect((await get<DockerNode>('/nodes/shoal-manager')).ID).toBe(leader);
      expect((await get<DockerNode>(`/nodes/${leader.slice(0, 8)}`)).ID).toBe(leader);
    });
  });

  describe("changing the control plane's node", () => {
    const update = async (spec: object, version?: number) => {
      const current = await get<DockerNode>(`/nodes/${leader}`);
      return api.request('POST', `/nodes/${leader}/update?version=${version ?? current.Version.Index}`, { socket: true, body: { ...current.Spec, ...spec } });
    };

    it('accepts an update that changes nothing, writing nothing (`docker node update self` without flags)', async () => {
      const before = await api.log.highWaterMark();
      expect((await update({})).status).toBe(200);
      expect((await update({ Availability: 'drain' })).status).toBe(200);
      expect(await api.log.highWaterMark()).toBe(before);
    });

    it("refuses a demotion in SwarmKit's words, before the version is checked, and any other change", async () => {
      expect(await update({ Role: 'worker' }, 999)).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^attempting to demote the last manager of the swarm/) } });
      expect(await update({}, 999)).toMatchObject({ status: 409, body: { message: expect.stringMatching(/^update out of sequence/) } });
      expect(await update({ Availability: 'active' })).toMatchObject({ status: 400, body: { message: expect.stringMatching(/stays drained/) } });
      expect(await update({ Labels: { zone: 'east' } })).toMatchObject({ status: 400 });
      expect((await get<DockerNode>(`/nodes/${leader}`)).Spec).toEqual({ Labels: {}, Role: 'manager', Availability: 'drain' });
    });

    it("refuses its removal, forced or not, in SwarmKit's words for a manager in the raft cluster", async () => {
      const message = `node ${leader} is a cluster manager and is a member of the raft cluster. It must be demoted to worker before removal`;
      for (const path of [`/nodes/${leader}`, `/nodes/${leader}?force=true`, '/nodes/shoal-manager']) {
        expect(await api.request('DELETE', path, { socket: true })).toMatchObject({ status: 400, body: { message } });
      }
    });
  });

  it('lists the tasks of the control plane as of any node (docker node ps self): none; an unknown node is 404', async () => {
    const tasksOn = (node: string) => api.request('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ node: [node] }))}`, { socket: true });
    expect(await tasksOn(leader)).toMatchObject({ status: 200, body: [] });
    expect(await tasksOn('shoal-manager')).toMatchObject({ status: 200, body: [] });
    expect(await tasksOn('nowhere')).toMatchObject({ status: 404, body: { message: 'node nowhere not found' } });
  });
});
