import type { Node } from '@shoal/domain';
import { nodeDescription } from '@shoal/testing';
import { fromDockerNodeSpec, toDockerNode } from './node-mapper';
import { SpecError } from './spec-error';

const node: Node = {
  id: 'n1',
  description: nodeDescription('node-1', { engine: { version: '28.2.2', labels: { disk: 'ssd' } } }),
  spec: { labels: { zone: 'east' }, role: 'worker', availability: 'active' },
  version: 3,
  status: { state: 'ready', addr: '10.0.0.5', at: 't1' },
  createdAt: 't0',
  updatedAt: 't1',
};

describe("Docker's Node object", () => {
  it('carries spec, description and status', () => {
    expect(toDockerNode(node)).toMatchObject({
      ID: 'n1',
      Version: { Index: 3 },
      Spec: { Labels: { zone: 'east' }, Role: 'worker', Availability: 'active' },
      Description: {
        Hostname: 'node-1',
        Platform: { Architecture: 'x86_64', OS: 'linux' },
        Resources: { NanoCPUs: 4e9, MemoryBytes: 8 * 2 ** 30 },
        Engine: { EngineVersion: '28.2.2', Labels: { disk: 'ssd' } },
      },
      Status: { State: 'ready', Addr: '10.0.0.5' },
    });
    expect(toDockerNode(node).ManagerStatus).toBeUndefined();
  });

  it("lists the node's plugins as Docker's engine describes them, by type then name, in the order of their bytes, whatever order the agent reported", () => {
    const plugins = [
      { type: 'Volume', name: 'local' },
      { type: 'Network', name: 'overlay' },
      { type: 'Network', name: 'bridge' },
      { type: 'Log', name: 'syslog' },
      { type: 'Log', name: 'Zeta' },
      { type: 'Log', name: 'awslogs' },
    ];
    const described = toDockerNode({ ...node, description: { ...node.description, engine: { ...node.description.engine, plugins } } });
    expect(described.Description.Engine.Plugins).toEqual([
      { Type: 'Log', Name: 'Zeta' },
      { Type: 'Log', Name: 'awslogs' },
      { Type: 'Log', Name: 'syslog' },
      { Type: 'Network', Name: 'bridge' },
      { Type: 'Network', Name: 'overlay' },
      { Type: 'Volume', Name: 'local' },
    ]);
    expect(plugins[0]).toEqual({ type: 'Volume', name: 'local' });
  });

  it('gives managers a ManagerStatus without Leader, which Docker leaves out when false (JSON has no "Leader" key)', () => {
    const manager = toDockerNode({ ...node, spec: { ...node.spec, role: 'manager' } });
    expect(manager.ManagerStatus).toEqual({ Reachability: 'reachable', Addr: '10.0.0.5' });
    expect(JSON.stringify(manager.ManagerStatus)).toBe('{"Reachability":"reachable","Addr":"10.0.0.5"}');
    const down = toDockerNode({ ...node, spec: { ...node.spec, role: 'manager' }, status: { ...node.status, state: 'down' } });
    expect(down.ManagerStatus).toEqual({ Reachability: 'unreachable', Addr: '10.0.0.5' });
  });
});

describe("Docker's NodeSpec → Shoal's", () => {
  it('takes what `docker node update` sends', () => {
    expect(fromDockerNodeSpec({ Labels: { zone: 'west' }, Role: 'worker', Availability: 'drain' }, node.spec)).toEqual({
      labels: { zone: 'west' },
      role: 'worker',
      availability: 'drain',
    });
  });

  it('keeps what is left out', () => {
    expect(fromDockerNodeSpec({}, node.spec)).toEqual(node.spec);
  });

  it('refuses an unknown availability or role', () => {
    expect(() => fromDockerNodeSpec({ Availability: 'gone' }, node.spec)).toThrow(SpecError);
    expect(() => fromDockerNodeSpec({ Role: 'king' }, node.spec)).toThrow(/Role: "king"/);
  });
});
