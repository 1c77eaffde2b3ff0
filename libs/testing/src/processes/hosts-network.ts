/**
 * Separate hosts on one machine, for end-to-end tests of a multi-host layout: network
 * namespaces of the test's own making, joined by veth pairs with addresses of its own.
 *   managers  (shoal-mh-m): the broker and the control plane; 10.214.1.1 towards host a,
 *                           10.214.2.1 towards host b, 10.214.0.2 towards this machine
 *   host a    (shoal-mh-a): 10.214.1.2, linked to the managers only
 *   host b    (shoal-mh-b): 10.214.2.2, linked to the managers only
 * This machine reaches the managers' host through its own link (10.214.0.1, where nothing
 * listens), for the test to watch the broker; the hosts share the file system, so the API's
 * unix socket reaches the docker CLI as on one host. cut(host) takes a host's link down, as a
 * pulled cable; restore(host) brings it back. Needs root (ip).
 */
import { spawnSync } from 'node:child_process';

const sh = (args: readonly string[], tolerate = false): void => {
  const result = spawnSync(args[0]!, args.slice(1), { encoding: 'utf8' });
  if (result.status !== 0 && !tolerate) throw new Error(`${args.join(' ')} failed: ${(result.stderr || result.error?.message || '').trim()}`);
};

export type AgentHost = 'a' | 'b';

interface Link {
  /** The end in the managers' namespace (or on this machine, for the test's link). */
  readonly near: string;
  readonly nearAddress: string;
  /** The end in the host's namespace. */
  readonly far: string;
  readonly farAddress: string;
  readonly farNamespace: string;
}

export class HostsNetwork {
  static readonly MANAGERS = 'shoal-mh-m';
  static readonly HOSTS: Readonly<Record<AgentHost, string>> = { a: 'shoal-mh-a', b: 'shoal-mh-b' };
  /** The managers' address on the test's own link: where the broker listens. */
  static readonly MANAGERS_ADDRESS = '10.214.0.2';

  private static readonly LINKS: Readonly<Record<AgentHost, Link>> = {
    a: { near: 'shmha', nearAddress: '10.214.1.1', far: 'shaha', farAddress: '10.214.1.2', farNamespace: HostsNetwork.HOSTS.a },
    b: { near: 'shmhb', nearAddress: '10.214.2.1', far: 'shbhb', farAddress: '10.214.2.2', farNamespace: HostsNetwork.HOSTS.b },
  };

  /** Makes the three namespaces and their links (whatever an earlier run left is removed first). */
  static create(): HostsNetwork {
    const network = new HostsNetwork();
    network.remove();
    for (const ns of [HostsNetwork.MANAGERS, ...Object.values(HostsNetwork.HOSTS)]) {
      sh(['ip', 'netns', 'add', ns]);
      sh(['ip', 'netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up']);
    }
    // This machine's link to the managers' host: the test watches the broker through it.
    sh(['ip', 'link', 'add', 'shmt0', 'type', 'veth', 'peer', 'name', 'shmm0']);
    sh(['ip', 'link', 'set', 'shmm0', 'netns', HostsNetwork.MANAGERS]);
    sh(['ip', 'addr', 'add', '10.214.0.1/30', 'dev', 'shmt0']);
    sh(['ip', 'link', 'set', 'shmt0', 'up']);
    sh(['ip', 'netns', 'exec', HostsNetwork.MANAGERS, 'ip', 'addr', 'add', `${HostsNetwork.MANAGERS_ADDRESS}/30`, 'dev', 'shmm0']);
    sh(['ip', 'netns', 'exec', HostsNetwork.MANAGERS, 'ip', 'link', 'set', 'shmm0', 'up']);
    for (const link of Object.values(HostsNetwork.LINKS)) {
      sh(['ip', 'link', 'add', link.near, 'type', 'veth', 'peer', 'name', link.far]);
      sh(['ip', 'link', 'set', link.near, 'netns', HostsNetwork.MANAGERS]);
      sh(['ip', 'link', 'set', link.far, 'netns', link.farNamespace]);
      sh(['ip', 'netns', 'exec', HostsNetwork.MANAGERS, 'ip', 'addr', 'add', `${link.nearAddress}/30`, 'dev', link.near]);
      sh(['ip', 'netns', 'exec', HostsNetwork.MANAGERS, 'ip', 'link', 'set', link.near, 'up']);
      sh(['ip', 'netns', 'exec', link.farNamespace, 'ip', 'addr', 'add', `${link.farAddress}/30`, 'dev', link.far]);
      sh(['ip', 'netns', 'exec', link.farNamespace, 'ip', 'link', 'set', link.far, 'up']);
    }
    return network;
  }

  /** The managers' address as host `host` reaches it. */
  managersFrom(host: AgentHost): string {
    return HostsNetwork.LINKS[host].nearAddress;
  }

  /** Takes host `host`'s link down, on its side: nothing goes either way until restore(). */
  cut(host: AgentHost): void {
    const link = HostsNetwork.LINKS[host];
    sh(['ip', 'netns', 'exec', link.farNamespace, 'ip', 'link', 'set', link.far, 'down']);
  }

  /** Brings host `host`'s link back up. */
  restore(host: AgentHost): void {
    const link = HostsNetwork.LINKS[host];
    sh(['ip', 'netns', 'exec', link.farNamespace, 'ip', 'link', 'set', link.far, 'up']);
  }

  /** Removes the namespaces (and with them the links); run once every process in them has stopped. */
  remove(): void {
    for (const ns of [HostsNetwork.MANAGERS, ...Object.values(HostsNetwork.HOSTS)]) sh(['ip', 'netns', 'del', ns], true);
    sh(['ip', 'link', 'del', 'shmt0'], true);
  }
}
