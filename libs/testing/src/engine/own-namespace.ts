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
