/**
 * A service's virtual IP made to answer on a node, as rules in the host's nat table (after
 * kube-proxy's iptables mode): traffic that comes in on the bridge of a Shoal network to
 * the service's VIP there is DNATed to one of the service's tasks on the node, picked at
 * random with the `statistic` module, its port kept (Docker's VIP forwards every port).
 *
 *   PREROUTING  -j SHOAL-VIP-<node>                                  (first, one per node)
 *   SHOAL-VIP-<node>  -d <vip>/32 -i <bridge> -j SHOAL-VIP-<node>-<service on network>
 *   SHOAL-VIP-<node>-<…>  -m statistic --probability 1/n -j DNAT --to-destination <task 1>
 *                         …                              -j DNAT --to-destination <task n>
 *
 * Each node has chains of its own, so that agents sharing a host leave each other's be.
 * Pure: the text of `iptables-save -t nat` in, the input of `iptables-restore --noflush`
 * out (service-vips runs them).
 */
import { createHash } from 'node:crypto';

/** A service's virtual IP on one engine network of the node, and the addresses there of its tasks up on the node. */
export interface LocalVip {
  readonly serviceId: string;
  readonly networkId: string;
  /** The engine network's bridge interface, where the clients' traffic comes in. */
  readonly bridge: string;
  /** The virtual IP, without prefix length. */
  readonly vip: string;
  /** The tasks' addresses, without prefix length; at least one. */
  readonly backends: readonly string[];
}

/** A VIP as the host holds it: an address on a bridge. */
export interface BridgeAddress {
  readonly bridge: string;
  readonly vip: string;
}

/** What the nat table holds of Shoal's VIPs. */
export interface NatTable {
  /** The node's chains. */
  readonly chains: ReadonlySet<string>;
  /** PREROUTING jumps to the node's chain. */
  readonly jumps: boolean;
  /** Each VIP a node's chain matches (any node's), by the node chain that does. */
  readonly matched: readonly (BridgeAddress & { readonly chain: string })[];
}

const PREFIX = 'SHOAL-VIP-';
const NODE_CHAIN = /^SHOAL-VIP-[0-9a-f]{8}$/;

const digest = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The node's chain, jumped to from PREROUTING: `SHOAL-VIP-<8 hex of the node id>`. */
export const nodeChain = (nodeId: string): string => `${PREFIX}${digest(nodeId, 8)}`;

/** The chain that spreads one service's VIP on one network over its tasks (28 characters, iptables' most). */
export const serviceChain = (nodeId: string, vip: Pick<LocalVip, 'serviceId' | 'networkId'>): string => `${nodeChain(nodeId)}-${digest(`${vip.serviceId}/${vip.networkId}`, 9)}`;

/** An option's value in one rule of `iptables-save` (`-d 10.0.1.2/32` → "10.0.1.2/32"). */
const option = (words: readonly string[], name: string): string | undefined => {
  const at = words.indexOf(name);
  return at >= 0 ? words[at + 1] : undefined;
};

/** What `iptables-save -t nat` says of the node's chains, and of every node's VIPs. */
export const readNatTable = (save: string, nodeId: string): NatTable => {
  const own = nodeChain(nodeId);
  const chains = new Set<string>();
  let jumps = false;
  const matched: (BridgeAddress & { chain: string })[] = [];
  for (const line of save.split('\n')) {
    const words = line.trim().split(/\s+/);
    if (words[0]?.startsWith(':')) {
      const chain = words[0].slice(1);
      if (chain === own || chain.startsWith(`${own}-`)) chains.add(chain);
      continue;
    }
    if (words[0] !== '-A') continue;
    const chain = words[1] ?? '';
    if (chain === 'PREROUTING' && option(words, '-j') === own) jumps = true;
    const destination = option(words, '-d');
    const bridge = option(words, '-i');
    if (NODE_CHAIN.test(chain) && destination?.endsWith('/32') && bridge) matched.push({ chain, bridge, vip: destination.slice(0, -'/32'.length) });
  }
  return { chains, jumps, matched };
};

/** The DNAT rules of one service chain: task i of n taken with probability 1/(n-i) of what is left, the last always. */
const spread = (chain: string, backends: readonly string[]): string[] =>
  backends.map((backend, index) => {
    const left = backends.length - index;
    const statistic = left > 1 ? `-m statistic --mode random --probability ${(1 / left).toFixed(10)} ` : '';
    return `-A ${chain} ${statistic}-j DNAT --to-destination ${backend}`;
  });

/**
 * The input of `iptables-restore --noflush` that makes the node's chains say `wanted` and
 * nothing else: its chains (re)written, PREROUTING's jump to them added first, chains of
 * VIPs it no longer has deleted; with nothing wanted, every chain of the node and the jump
 * go. Undefined when the table has nothing of the node and nothing is wanted.
 */
export const restoreInput = (nodeId: string, wanted: readonly LocalVip[], table: NatTable): string | undefined => {
  const own = nodeChain(nodeId);
  if (wanted.length === 0 && table.chains.size === 0 && !table.jumps) return undefined;
  const chains = wanted.length === 0 ? [] : [own, ...wanted.map((vip) => serviceChain(nodeId, vip))];
  const stale = [...table.chains].filter((chain) => !chains.includes(chain)).sort((a, b) => b.length - a.length);
  const lines = ['*nat', ...[...chains, ...stale].map((chain) => `:${chain} - [0:0]`)];
  if (wanted.length > 0 && !table.jumps) lines.push(`-I PREROUTING 1 -j ${own}`);
  if (wanted.length === 0 && table.jumps) lines.push(`-D PREROUTING -j ${own}`);
  for (const vip of wanted) {
    const chain = serviceChain(nodeId, vip);
    lines.push(`-A ${own} -d ${vip.vip}/32 -i ${vip.bridge} -j ${chain}`, ...spread(chain, vip.backends));
  }
  // A service chain is referenced by the node chain, flushed above: the node chain goes last.
  lines.push(...stale.map((chain) => `-X ${chain}`), 'COMMIT', '');
  return lines.join('\n');
};

/** The VIPs the node held on bridges and no longer wants, that no other node's chain matches either: the addresses to take off. */
export const staleAddresses = (nodeId: string, wanted: readonly LocalVip[], table: NatTable): BridgeAddress[] => {
  const own = nodeChain(nodeId);
  const key = (address: BridgeAddress): string => `${address.bridge} ${address.vip}`;
  const kept = new Set([...wanted.map(key), ...table.matched.filter((match) => match.chain !== own).map(key)]);
  const stale = new Map(table.matched.filter((match) => match.chain === own && !kept.has(key(match))).map((match) => [key(match), { bridge: match.bridge, vip: match.vip }]));
  return [...stale.values()];
};
