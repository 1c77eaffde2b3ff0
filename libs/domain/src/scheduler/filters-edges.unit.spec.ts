import fc from 'fast-check';
import { TaskState } from '@shoal/contracts';
import type { Platform, PortConfig, Task } from '@shoal/contracts';
import { hostPortSets, imagePlatforms, node, nodePlatforms, pending, service, specification, whenScheduled } from '@shoal/testing';
import type { ClusterState } from '../state';
import { SchedulerCore } from './scheduler-core';
import { taskHostPorts } from './scheduling-task';

const scheduler = () => specification({ core: () => new SchedulerCore() });

const host = (publishedPort: number, protocol: 'tcp' | 'udp' = 'tcp'): PortConfig => ({ protocol, targetPort: publishedPort, publishedPort, publishMode: 'host' });

const holding = (state: ClusterState): Task[] =>
  [...state.tasks.values()].filter((t) => t.nodeId !== undefined && t.status.state >= TaskState.ASSIGNED && t.status.state <= TaskState.RUNNING);

describe('scheduler filters at their edges', () => {
  describe('host-mode ports: every one of a task’s host ports must be free on the node', () => {
    it('given a node where one of a task’s two host ports is taken, when the task is scheduled, then it does not land there', () => {
      const c = scheduler().given(
        node('n1'),
        service('proxy', {}, undefined, [host(8080)]),
        pending('proxy', 1),
      );
      whenScheduled(c);
      c.given(service('web', {}, undefined, [host(9090), host(8080)]), pending('web', 1));
      const out = whenScheduled(c);
      expect(out.assigned.size).toBe(0);
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (host-mode port already in use on 1 node)']);
    });

    it('given two nodes, one holding the second of a task’s ports, then the task lands only on the other', () => {
      const c = scheduler().given(node('n1'), service('dns', {}, undefined, [host(53, 'udp')]), pending('dns', 1));
      whenScheduled(c);
      c.given(node('n2'), service('web', {}, undefined, [host(80), host(53, 'udp')]), pending('web', 2));
      const out = whenScheduled(c);
      expect([...out.assigned.values()]).toEqual(['n2']);
      expect([...out.unschedulable.values()]).toEqual(['no suitable node (host-mode port already in use on 2 nodes)']);
    });
  });

  describe('platform: an empty OS or architecture matches any', () => {
    it('given an image for an architecture alone, then it lands on a node of that architecture whatever its OS, and nowhere else', () => {
      const c = scheduler().given(
        node('win', { platform: { os: 'windows', architecture: 'x86_64' } }),
        node('arm', { platform: { os: 'linux', architecture: 'aarch64' } }),
        service('amd', { placement: { platforms: [{ os: '', architecture: 'amd64' }] } }),
        pending('amd', 2),
      );
      const out = whenScheduled(c);
      expect(out.perNode('amd')).toEqual(new Map([['win', 2]]));
      expect(out.unschedulable.size).toBe(0);
    });

    it('given a platform with neither an OS nor an architecture, then it matches every node that reports a platform', () => {
      const c = scheduler().given(
        node('win', { platform: { os: 'windows', architecture: 'x86_64' } }),
        node('arm', { platform: { os: 'linux', architecture: 'aarch64' } }),
        service('any', { placement: { platforms: [{ os: '', architecture: '' }] } }),
        pending('any', 2),
      );
      expect(whenScheduled(c).perNode('any')).toEqual(new Map([['win', 1], ['arm', 1]]));
    });
  });
});

const ARCH: Readonly<Record<string, string>> = { x86_64: 'amd64', aarch64: 'arm64' };
const sameArch = (a: string, b: string): boolean => (ARCH[a] ?? a) === (ARCH[b] ?? b);
/** The rule, stated once more independently of the filter. */
const runsOn = (wanted: readonly Platform[], has: Platform): boolean =>
  wanted.length === 0 || wanted.some((p) => (p.os === '' || p.os === has.os) && (p.architecture === '' || sameArch(p.architecture, has.architecture)));

describe('scheduler properties over multi-port tasks and partial platforms', () => {
  it('never puts two tasks holding the same host port on one node, and leaves a task unplaced only when every node has one of its ports taken', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(fc.tuple(hostPortSets(), fc.integer({ min: 1, max: 4 })), { minLength: 1, maxLength: 4 }), (nodeCount, services) => {
        const c = scheduler();
        for (let i = 1; i <= nodeCount; i++) c.given(node(`n${i}`));
        services.forEach(([ports, count], i) => c.given(service(`s${i}`, {}, undefined, ports), pending(`s${i}`, count)));
        const out = whenScheduled(c);
        const used = new Map<string, Set<string>>();
        for (const task of holding(c.state)) {
          const ports = taskHostPorts(task, c.state);
          const held = used.get(task.nodeId as string) ?? new Set<string>();
          for (const port of ports) {
            expect(held.has(port)).toBe(false);
            held.add(port);
          }
          used.set(task.nodeId as string, held);
        }
        for (const id of out.unschedulable.keys()) {
          const ports = taskHostPorts(c.state.tasks.get(id) as Task, c.state);
          for (let i = 1; i <= nodeCount; i++) expect(ports.some((port) => used.get(`n${i}`)?.has(port))).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });

  it('places a task exactly on the nodes whose platform one of its platforms names, an empty field matching any', () => {
    fc.assert(
      fc.property(fc.array(nodePlatforms(), { minLength: 1, maxLength: 4 }), fc.array(imagePlatforms(), { minLength: 0, maxLength: 3 }), (nodes, wanted) => {
        const c = scheduler();
        nodes.forEach((platform, i) => c.given(node(`n${i}`, { platform })));
        c.given(service('img', wanted.length > 0 ? { placement: { platforms: wanted } } : {}), pending('img', 1));
        const out = whenScheduled(c);
        const fits = nodes.map((platform, i) => (runsOn(wanted, platform) ? `n${i}` : undefined)).filter((id) => id !== undefined);
        if (fits.length === 0) expect(out.assigned.size).toBe(0);
        else expect(fits).toContain([...out.assigned.values()][0]);
      }),
      { numRuns: 300 },
    );
  });
});
