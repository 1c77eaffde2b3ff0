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
 *   POSTROUTING -j SHOAL-VIP-<node>-hairpin                          (first, one per node)
 *   SHOAL-VIP-<node>-hairpin  -s <task>/32 -d <task>/32 --ctstate DNAT -j MASQUERADE
 *
 * The last is for a task that reaches its own service's VIP and is picked: sent back out
 * the bridge port it came from (service-vips turns hairpin on for it), it comes from the
 * bridge's gateway, not from its own address (which it would drop, as a martian).
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
  readonly prerouting: boolean;
  /** POSTROUTING jumps to the node's hairpin chain. */
  readonly postrouting: boolean;
  /** Each VIP a node's chain matches (any node's), by the node chain that does. */
  readonly matched: readonly (BridgeAddress & { readonly chain: string })[];
}

const PREFIX = 'SHOAL-VIP-';
const NODE_CHAIN = /^SHOAL-VIP-[0-9a-f]{8}$/;

const digest = (text: string, length: number): string => createHash('sha256').update(text).digest('hex').slice(0, length);

/** The node's chain, jumped to from PREROUTING: `SHOAL-VIP-<8 hex of the node id>`. */
export const nodeChain = (nodeId: string): string => `${PREFIX}${digest(nodeId, 8)}`;

/** The node's chain of hairpin masquerades, jumped to from POSTROUTING. */
export const hairpinChain = (nodeId: string): string => `${nodeChain(nodeId)}-hairpin`;

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
  const hairpin = hairpinChain(nodeId);
  const chains = new Set<string>();
  let [prerouting, postrouting] = [false, false];
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
    if (chain === 'PREROUTING' && option(words, '-j') === own) prerouting = true;
    if (chain === 'POSTROUTING' && option(words, '-j') === hairpin) postrouting = true;
    const destination = option(words, '-d');
    const bridge = option(words, '-i');
    if (NODE_CHAIN.test(chain) && destination?.endsWith('/32') && bridge) matched.push({ chain, bridge, vip: destination.slice(0, -'/32'.length) });
  }
  return { chains, prerouting, postrouting, matched };
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
 * nothing else: its chains (re)written, PREROUTING's and POSTROUTING's jumps to them added
 * first, chains of VIPs it no longer has deleted; with nothing wanted, every chain of the
 * node and the jumps go. Undefined when the table has nothing of the node and nothing is
 * wanted.
 */
export const restoreInput = (nodeId: string, wanted: readonly LocalVip[], table: NatTable): string | undefined => {
  const [own, hairpin] = [nodeChain(nodeId), hairpinChain(nodeId)];
  if (wanted.length === 0 && table.chains.size === 0 && !table.prerouting && !table.postrouting) return undefined;
  const chains = wanted.length === 0 ? [] : [own, hairpin, ...wanted.map((vip) => serviceChain(nodeId, vip))];
  // Service chains before the hairpin chain before the node chain, which references them.
  const stale = [...table.chains].filter((chain) => !chains.includes(chain)).sort((a, b) => b.length - a.length);
  const lines = ['*nat', ...[...chains, ...stale].map((chain) => `:${chain} - [0:0]`)];
  if (wanted.length > 0) {
    if (!table.prerouting) lines.push(`-I PREROUTING 1 -j ${own}`);
    if (!table.postrouting) lines.push(`-I POSTROUTING 1 -j ${hairpin}`);
  } else {
    if (table.prerouting) lines.push(`-D PREROUTING -j ${own}`);
    if (table.postrouting) lines.push(`-D POSTROUTING -j ${hairpin}`);
  }
  for (const vip of wanted) {
    const chain = serviceChain(nodeId, vip);
    lines.push(`-A ${own} -d ${vip.vip}/32 -i ${vip.bridge} -j ${chain}`, ...spread(chain, vip.backends));
  }
  for (const backend of new Set(wanted.flatMap((vip) => vip.backends))) {
    lines.push(`-A ${hairpin} -s ${backend}/32 -d ${backend}/32 -m conntrack --ctstate DNAT -j MASQUERADE`);
  }
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
