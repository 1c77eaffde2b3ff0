/**
 * A network of a test's own for a KRaft cluster whose nodes can be cut off from each other:
 * a bridge (10.213.29.1/24 on this host) and, per node, a network namespace joined to it by a
 * veth pair, with the address 10.213.29.<10 + id>. Each node's JVM runs in its namespace
 * (`ip netns exec`); clients on this host reach every node through the bridge. partition(id)
 * drops, inside node id's namespace, everything to and from the other nodes (clients still
 * reach it, as in a partition between racks); heal(id) lifts that. Needs root (ip, iptables).
 */
import { spawnSync } from 'node:child_process';

const SUBNET = '10.213.29';
const BRIDGE = 'shoalfb29';

const sh = (args: readonly string[], tolerate = false): void => {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (result.status !== 0 && !tolerate) throw new Error(`${args.join(' ')} failed: ${(result.stderr || result.error?.message || '').trim()}`);
};

export class FaultNetwork {
  private constructor(readonly nodes: number) {}

  /** The namespace node `id` runs in. */
  static namespace(id: number): string {
    return `shoal-kafka-${id}`;
  }

  /** Node `id`'s address. */
  static host(id: number): string {
    return `${SUBNET}.${10 + id}`;
  }

  /** Makes the bridge and a namespace per node (whatever an earlier run left is removed first). */
  static create(nodes: number): FaultNetwork {
    const network = new FaultNetwork(nodes);
    network.remove();
    sh(['ip', 'link', 'add', BRIDGE, 'type', 'bridge']);
    sh(['ip', 'addr', 'add', `${SUBNET}.1/24`, 'dev', BRIDGE]);
    sh(['ip', 'link', 'set', BRIDGE, 'up']);
    // Where bridged traffic goes through iptables (br_netfilter, as a Docker engine sets), let this bridge's pass.
    sh(['iptables', '-I', 'FORWARD', '-i', BRIDGE, '-o', BRIDGE, '-j', 'ACCEPT']);
    for (let id = 1; id <= nodes; id++) {
      const ns = FaultNetwork.namespace(id);
      sh(['ip', 'netns', 'add', ns]);
      sh(['ip', 'link', 'add', `sfh${id}`, 'type', 'veth', 'peer', 'name', `sfn${id}`]);
      sh(['ip', 'link', 'set', `sfh${id}`, 'master', BRIDGE]);
      sh(['ip', 'link', 'set', `sfh${id}`, 'up']);
      sh(['ip', 'link', 'set', `sfn${id}`, 'netns', ns]);
      sh(['ip', 'netns', 'exec', ns, 'ip', 'addr', 'add', `${FaultNetwork.host(id)}/24`, 'dev', `sfn${id}`]);
      sh(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', `sfn${id}`, 'up']);
      sh(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    }
    return network;
  }

  /** Cuts node `id` off from every other node, both ways; clients on this host still reach it. */
  partition(id: number): void {
    const ns = FaultNetwork.namespace(id);
    for (let other = 1; other <= this.nodes; other++) {
      if (other === id) continue;
      sh(['ip', 'netns', 'exec', ns, 'iptables', '-A', 'INPUT', '-s', FaultNetwork.host(other), '-j', 'DROP']);
      sh(['ip', 'netns', 'exec', ns, 'iptables', '-A', 'OUTPUT', '-d', FaultNetwork.host(other), '-j', 'DROP']);
    }
  }

  /** Lifts partition(id). */
  heal(id: number): void {
    const ns = FaultNetwork.namespace(id);
    sh(['ip', 'netns', 'exec', ns, 'iptables', '-F', 'INPUT']);
    sh(['ip', 'netns', 'exec', ns, 'iptables', '-F', 'OUTPUT']);
  }

  /** Removes the namespaces, the bridge and its rule (run once every node has stopped). */
  remove(): void {
    for (let id = 1; id <= this.nodes; id++) {
      sh(['ip', 'netns', 'del', FaultNetwork.namespace(id)], true);
      sh(['ip', 'link', 'del', `sfh${id}`], true);
    }
    sh(['iptables', '-D', 'FORWARD', '-i', BRIDGE, '-o', BRIDGE, '-j', 'ACCEPT'], true);
    sh(['ip', 'link', 'del', BRIDGE], true);
  }
}
