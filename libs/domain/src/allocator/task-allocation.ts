/**
 * A task's allocation: an address on every network it attaches to — the networks of its
 * spec, plus the ingress network when its service publishes ports through the routing
 * mesh — and its service's published ports. All or nothing: on any failure what was
 * taken for it is given back.
 */
import type { NetworkAttachment, PortConfig, Task } from '@shoal/contracts';
import type { Network, Service } from '../state';
import { taskHolder } from './address-pool';
import { formatSubnet } from '../net';
import { wantsEndpoint } from './endpoint-allocation';
import type { HeldAddress, Ledger } from './ledger';
import type { NetworkIndex } from './network-index';

export type TaskOutcome =
  | { readonly kind: 'allocated'; readonly attachments: readonly NetworkAttachment[]; readonly ports?: readonly PortConfig[]; readonly held: readonly HeldAddress[] }
  /** Not yet: something it needs is on its way (a network's subnet, its service's endpoint). */
  | { readonly kind: 'wait'; readonly on: string }
  /** Cannot be allocated until `on` changes, for `reason`. */
  | { readonly kind: 'failed'; readonly on: string; readonly reason: string };

/** The key a task waits under for a network (by id or by the name it was asked for). */
export const networkKey = (idOrName: string): string => `net:${idOrName}`;
export const serviceKey = (id: string): string => `svc:${id}`;
export const INGRESS_KEY = networkKey('(ingress)');

/** Whether its service's endpoint puts the task on the routing mesh. */
const onIngress = (service: Service): boolean => (service.endpoint?.ports ?? []).some((p) => p.publishMode === 'ingress');

export const allocateTask = (
  task: Task,
  service: Service,
  networks: NetworkIndex,
  ledger: Ledger,
  networkFailures: ReadonlyMap<string, string>,
): TaskOutcome => {
  const needsEndpoint = wantsEndpoint(service.spec);
  const attach: Network[] = [];
  if (needsEndpoint && onIngress(service)) {
    if (!networks.ingress) return { kind: 'failed', on: INGRESS_KEY, reason: 'ingress network not found: ingress-mode published ports need it' };
    attach.push(networks.ingress);
  }
  for (const config of task.spec.networks ?? []) {
    const network = networks.resolve(config.target);
    if (!network) return { kind: 'failed', on: networkKey(config.target), reason: `network ${config.target} not found` };
    if (!attach.includes(network)) attach.push(network);
  }
  for (const network of attach) {
    if (ledger.pools.has(network.id)) continue;
    const failure = networkFailures.get(network.id);
    if (failure) return { kind: 'failed', on: networkKey(network.id), reason: `network ${network.spec.name} could not be allocated: ${failure}` };
    return { kind: 'wait', on: networkKey(network.id) };
  }

  const holder = taskHolder(task.id);
  const held: HeldAddress[] = [];
  const attachments: NetworkAttachment[] = [];
  for (const network of attach) {
    const pool = ledger.pools.get(network.id);
    const address = pool?.take(holder);
    if (!pool || address === undefined) {
      for (const h of held) ledger.pools.get(h.network)?.release(h.address, holder);
      const subnet = pool ? formatSubnet(pool.subnet) : network.subnet;
      return { kind: 'failed', on: networkKey(network.id), reason: `no available IP addresses on network ${network.spec.name} (${subnet}): address pool exhausted` };
    }
    held.push({ network: network.id, address });
    attachments.push({ network: network.id, addresses: [pool.format(address)] });
  }
  const ports = needsEndpoint ? service.endpoint?.ports ?? [] : [];
  return { kind: 'allocated', attachments, ...(ports.length > 0 ? { ports } : {}), held };
};
