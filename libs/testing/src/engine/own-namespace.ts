/**
 * A network namespace of an engine's own, for a swarm-mode engine beside another on one
 * machine: swarm mode makes docker_gwbridge, one per namespace, and dockerd makes its
 * docker0, its iptables chains, its swarm's listening port and ingress sandbox in the
 * namespace it runs in. Only its loopback is up: nothing links it to the machine's network
 * (the engine's unix socket is a file, reached from anywhere on the machine).
 *
 * dockerd enters it with `nsenter --net` (the network alone): `ip netns exec` would also
 * mount a sysfs of the namespace's own over /sys, hiding the cgroup hierarchies under
 * /sys/fs/cgroup, without which dockerd does not start ("Devices cgroup isn't mounted").
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ip } from './ip-command';

export interface OwnNamespace {
  /** `shoal-e-<hex>`, as `ip netns list` shows it. */
  readonly name: string;
  /** The command line that runs a program in it, before the program's: `nsenter --net=/run/netns/<name> --`. */
  readonly enter: readonly string[];
  /** Kills whatever still runs in it, then deletes it, and with it every interface in it. */
  remove(): void;
}

/** Namespace `name` removed, in bash: every process still in it killed, then the namespace deleted (a watchdog runs it too). */
export const removeNamespaceScript = (name: string): string => `ip netns pids ${name} 2>/dev/null | xargs -r kill -KILL 2>/dev/null; ip netns del ${name} 2>/dev/null`;

/** Creates the namespace and brings its loopback up (needs root, as dockerd does). */
export const makeOwnNamespace = (): OwnNamespace => {
  const name = `shoal-e-${randomBytes(4).toString('hex')}`;
  ip(['netns', 'add', name]);
  const remove = (): void => {
    spawnSync('bash', ['-c', removeNamespaceScript(name)]);
  };
  try {
    ip(['-n', name, 'link', 'set', 'lo', 'up']);
  } catch (error) {
    remove();
    throw error;
  }
  return { name, enter: ['nsenter', `--net=/run/netns/${name}`, '--'], remove };
};

/** A veth pair between two namespaces of engines' own, an address at each end. */
export interface NamespaceLink {
  /** Each end's interface, `sv<hex>a` in the first namespace, `sv<hex>b` in the second. */
  readonly interfaces: readonly [string, string];
  /** Each end's address (no prefix length), in the order the namespaces were given: 10.213.0.1, 10.213.0.2. */
  readonly addresses: readonly [string, string];
}

/**
 * The subnet every link gets, 10.213.0.0/30: it exists only inside the two namespaces (the
 * pair is made there, never on the machine's network), so links of other namespaces never
 * meet it.
 */
const LINK_ADDRESSES = ['10.213.0.1', '10.213.0.2'] as const;

/**
 * Links `first` and `second` with a veth pair made in them (`ip -n <first> link add … peer …
 * netns <second>`), each end addressed and up. Deleting either namespace deletes both ends,
 * so the link goes with the first of the two to be removed; nothing else needs undoing.
 */
export const linkNamespaces = (first: OwnNamespace, second: OwnNamespace): NamespaceLink => {
  const hex = randomBytes(4).toString('hex');
  const interfaces = [`sv${hex}a`, `sv${hex}b`] as const;
  ip(['-n', first.name, 'link', 'add', interfaces[0], 'type', 'veth', 'peer', 'name', interfaces[1], 'netns', second.name]);
  try {
    for (const [namespace, device, address] of [[first.name, interfaces[0], LINK_ADDRESSES[0]], [second.name, interfaces[1], LINK_ADDRESSES[1]]] as const) {
      ip(['-n', namespace, 'addr', 'add', `${address}/30`, 'dev', device]);
      ip(['-n', namespace, 'link', 'set', device, 'up']);
    }
  } catch (error) {
    spawnSync('ip', ['-n', first.name, 'link', 'del', interfaces[0]]);
    throw error;
  }
  return { interfaces, addresses: LINK_ADDRESSES };
};
