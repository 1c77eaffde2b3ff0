/**
 * A bridge interface of an engine's own, for a machine where another engine already uses
 * docker0: two engines on one bridge hand out the same addresses. It gets a /24 out of a
 * 10.N.0.0/16 no route here touches yet, and the engine's own networks (docker_gwbridge,
 * user networks) the rest of that /16 as their address pool.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { ip } from './ip-command';

export interface OwnBridge {
  /** The interface, `shoal-<hex>` (an interface name has at most 15 characters). */
  readonly name: string;
  /** dockerd's `--default-address-pool` for the engine's other networks. */
  readonly addressPool: string;
  /** Deletes the interface. */
  remove(): void;
}

/** The second octet of a 10.N.0.0/16 that no IPv4 route here lies in or covers, from 200 up. */
const freeTenNet = (routes: string): number => {
  for (let n = 200; n < 255; n++) {
    const overlaps = routes.split('\n').some((line) => line.startsWith(`10.${n}.`) || line.startsWith('10.0.0.0/8'));
    if (!overlaps) return n;
  }
  throw new Error('no free 10.N.0.0/16 (N in 200–254) for a test engine bridge');
};

/** Creates the bridge (needs root, as dockerd does). */
export const makeOwnBridge = (): OwnBridge => {
  const n = freeTenNet(ip(['-4', 'route', 'show']));
  const name = `shoal-${randomBytes(4).toString('hex')}`;
  ip(['link', 'add', name, 'type', 'bridge']);
  try {
    ip(['addr', 'add', `10.${n}.255.1/24`, 'dev', name]);
    ip(['link', 'set', name, 'up']);
  } catch (error) {
    spawnSync('ip', ['link', 'del', name]);
    throw error;
  }
  return {
    name,
    addressPool: `base=10.${n}.0.0/17,size=24`,
    remove: () => {
      spawnSync('ip', ['link', 'del', name]);
    },
  };
};
