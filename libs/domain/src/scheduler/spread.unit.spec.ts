import { TaskState } from '@shoal/contracts';
import { buildTree, DecisionTree } from './decision-tree';
import { NodeInfo } from './node-info';
import { node, nodes, pending, service, specification, whenScheduled } from '@shoal/testing';
import { shares } from './spread';
import { SchedulerCore } from './scheduler-core';

const scheduler = () => specification({ core: () => new SchedulerCore() });

const GiB = 2 ** 30;

describe('spread: the tree of heaps', () => {
  describe("the seed's example: N1 (S1, S2; ubuntu), N2 (S1; ubuntu), N3 (S2; centos), one more S2 task", () => {
    const cluster = (s2Preferences: { spread: string }[]) => {
      const c = scheduler().given(
        node('N1', { engineLabels: { os: 'ubuntu' } }),
        node('N2', { engineLabels: { os: 'ubuntu' } }),
        node('N3', { engineLabels: { os: 'centos' } }),
        service('S1'),
        service('S2', { placement: { preferences: s2Preferences } }),
      );
      c.given(pending('S1', 1, { nodeId: 'N1' }), pending('S1', 1, { nodeId: 'N2' }));
      c.given(pending('S2', 1, { nodeId: 'N1' }), pending('S2', 1, { nodeId: 'N3' }));
      whenScheduled(c);
      return c;
    };

    it('without preferences, one heap: N1 is the worst (ties N3 on S2 tasks, more in all), N2 the best', () => {
      const c = cluster([]);
      const nodes = ['N1', 'N2', 'N3'].map((id) => c.core.view.nodes.get(id) as NodeInfo);
      const s2 = c.state.tasks.get(c.lastCreated[0] as string) as { serviceId: string; specVersion: number };
      const { tree } = buildTree(nodes, {
        serviceId: s2.serviceId,
        preferences: [],
        maxAssignments: 3,
        passes: () => true,
        compare: (a, b) => a.tasksOf('S2') - b.tasksOf('S2') || a.activeTasks - b.activeTasks,
      });
      expect(tree.branches).toBeUndefined();
      expect(tree.candidates?.sorted().map((n) => n.id)).toEqual(['N2', 'N3', 'N1']);
      c.given(pending('S2', 1));
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['N2']);
      expect(out.why.get(c.lastCreated[0] as string)).toBe('node has 1 task of S2 (2 in all); 3 of 3 nodes passed');
    });

    it('spread over engine.labels.os: ubuntu (N1, N2) and centos (N3) each have one S2 task; centos, with fewer tasks in all, takes it', () => {
      const c = cluster([{ spread: 'engine.labels.os' }]);
      c.given(pending('S2', 1));
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['N3']);
      expect(out.why.get(c.lastCreated[0] as string)).toBe(
        'spread: engine.labels.os=centos has 2 of 3; node has 2 tasks of S2 (2 in all); 3 of 3 nodes passed',
      );
    });
  });

  it('equalises the service across the values of a label before looking at nodes', () => {
    const c = scheduler().given(
      nodes('east', 4, { labels: { zone: 'east' } }),
      node('west1', { labels: { zone: 'west' } }),
      service('web', { placement: { preferences: [{ spread: 'node.labels.zone' }] } }),
      pending('web', 6),
    );
    const out = whenScheduled(c);
    const perNode = out.perNode('web');
    expect(perNode.get('west1')).toBe(3);
    expect([1, 2, 3, 4].reduce((sum, i) => sum + (perNode.get(`east${i}`) ?? 0), 0)).toBe(3);
  });

  it('puts nodes without the label in a branch of their own', () => {
    const c = scheduler().given(
      node('a', { labels: { zone: 'a' } }),
      node('b', { labels: { zone: 'b' } }),
      node('unlabelled'),
      service('web', { placement: { preferences: [{ spread: 'node.labels.zone' }] } }),
      pending('web', 3),
    );
    expect(whenScheduled(c).perNode('web')).toEqual(new Map([['a', 1], ['b', 1], ['unlabelled', 1]]));
  });

  it('nested preferences (az, then rack): a full branch takes what it can and the rest is shared among the others', () => {
    // SwarmKit's multiple-preferences scenario, in our words: az1 has one node too small and
    // one that fits five tasks; az2 has three nodes in rack1 and two in rack2.
    const apples = (n: number) => [{ kind: 'apple', discrete: n }];
    const c = scheduler().given(
      node('id0', { labels: { az: 'az1', rack: 'rack1' }, memoryBytes: 1e8, generic: apples(1) }),
      node('id1', { labels: { az: 'az1', rack: 'rack1' }, memoryBytes: 1e9, generic: apples(10) }),
    );
    for (const id of ['id2', 'id3', 'id4']) c.given(node(id, { labels: { az: 'az2', rack: 'rack1' }, memoryBytes: 1e9, generic: apples(6) }));
    for (const id of ['id5', 'id6']) c.given(node(id, { labels: { az: 'az2', rack: 'rack2' }, memoryBytes: 1e9, generic: apples(6) }));
    c.given(
      service('s1', {
        placement: { preferences: [{ spread: 'node.labels.az' }, { spread: 'node.labels.rack' }] },
        resources: { reservations: { memoryBytes: 2e8, generic: apples(2) } },
      }),
      pending('s1', 12),
    );
    const perNode = whenScheduled(c).perNode('s1');
    expect(perNode.get('id0')).toBeUndefined();
    expect(perNode.get('id1')).toBe(5);
    const rack1 = ['id2', 'id3', 'id4'].map((id) => perNode.get(id) ?? 0);
    const rack2 = ['id5', 'id6'].map((id) => perNode.get(id) ?? 0);
    expect(rack1.reduce((a, b) => a + b) + rack2.reduce((a, b) => a + b)).toBe(7);
    expect([3, 4]).toContain(rack1.reduce((a, b) => a + b));
    expect(Math.max(...rack1) - Math.min(...rack1)).toBeLessThanOrEqual(1);
    expect(Math.max(...rack2) - Math.min(...rack2)).toBeLessThanOrEqual(1);
  });

  it('scaling up under nested preferences terminates and places every task', () => {
    const c = scheduler().given(
      node('id11', { labels: { az: 'az1', rack: 'rack1' }, memoryBytes: 3 * GiB }),
      node('id12', { labels: { az: 'az1', rack: 'rack2' }, memoryBytes: 3 * GiB }),
      node('id21', { labels: { az: 'az2', rack: 'rack1' }, memoryBytes: 3 * GiB }),
      service('s1', {
        placement: { preferences: [{ spread: 'node.labels.az' }, { spread: 'node.labels.rack' }] },
        resources: { reservations: { memoryBytes: 1 * GiB } },
      }),
      pending('s1', 2),
    );
    whenScheduled(c);
    c.given(pending('s1', 4));
    const out = whenScheduled(c);
    expect(out.assigned.size).toBe(4);
    const perNode = out.perNode('s1');
    expect((perNode.get('id11') ?? 0) + (perNode.get('id12') ?? 0)).toBe(3);
    expect(perNode.get('id21')).toBe(3);
  });

  it('fills the emptiest node up to the next one\'s level, then goes round', () => {
    const c = scheduler().given(nodes('n', 3), service('web'));
    c.given(pending('web', 3, { nodeId: 'n3' }), pending('web', 1, { nodeId: 'n2' }));
    whenScheduled(c);
    c.given(pending('web', 5));
    const order = [...whenScheduled(c).assigned.values()];
    expect(order.slice(0, 2)).toEqual(['n1', 'n1']);
    expect(whenScheduled(c).proposals).toEqual([]);
    const perNode = new Map<string, number>();
    for (const t of c.state.tasks.values()) if (t.status.state === TaskState.ASSIGNED) perNode.set(t.nodeId as string, (perNode.get(t.nodeId as string) ?? 0) + 1);
    expect(perNode).toEqual(new Map([['n1', 3], ['n2', 3], ['n3', 3]]));
  });

  describe('shares: how a level splits n tasks among its branches (best first)', () => {
    const branches = (...counts: number[]) =>
      counts.map((count, i) => Object.assign(new DecisionTree(`b${i}`), { serviceTasks: count }));
    it('raises the emptiest to the next level, then spreads the rest from the first', () => {
      expect(shares(branches(0, 0, 5), 10)).toEqual([5, 5, 0]);
      expect(shares(branches(0, 0, 5), 11)).toEqual([6, 5, 0]);
      expect(shares(branches(0, 2, 5), 3)).toEqual([3, 0, 0]);
      expect(shares(branches(1, 1), 1)).toEqual([1, 0]);
      expect(shares(branches(0, 3, 3), 12)).toEqual([6, 3, 3]);
      expect(shares(branches(0, 3, 3), 2)).toEqual([2, 0, 0]);
    });
  });

  it('keeps no more candidates at a leaf than the batch has tasks, the best ones', () => {
    const nodes = [5, 0, 3, 1, 4].map((count, i) => {
      const info = new NodeInfo({
        id: `n${i}`,
        description: { hostname: `n${i}`, platform: { os: 'linux', architecture: 'x86_64' }, resources: {}, engine: { version: '1' } },
        spec: { labels: {}, role: 'worker', availability: 'active' },
        version: 1,
        status: { state: 'ready', at: 't' },
        createdAt: 't',
        updatedAt: 't',
      });
      info.activeTasks = count;
      return info;
    });
    const { tree, passed, seen } = buildTree(nodes, {
      serviceId: 's',
      preferences: [],
      maxAssignments: 2,
      passes: () => true,
      compare: (a, b) => a.activeTasks - b.activeTasks,
    });
    expect(tree.candidates?.sorted().map((n) => n.id)).toEqual(['n1', 'n3']);
    expect([passed, seen]).toEqual([5, 5]);
    expect(tree.allTasks).toBe(13);
  });
});
