/**
 * The allocator's bookkeeping: every network's address pool, the routing mesh's published
 * ports, and what each task and service holds. It is rebuilt from ClusterState alone (the
 * networks' subnets, the tasks' attachments, the services' endpoints), so after a restart
 * nothing the log records as handed out is handed out again.
 *
 * Holdings may run ahead of the log: the allocator takes addresses and ports when it
 * proposes them. `syncTask` / `syncService` bring one holder back to what the state says
 * once the log has ruled, freeing whatever was proposed and refused.
 *
 * Holdings are keyed by network id, and a network may be removed and created again under
 * the same id while something still records an address on it: a service whose endpoint
 * keeps a virtual IP on a network its spec no longer names (its update could not be
 * allocated yet), so the network could be removed. Such an address stays held for as long
 * as it is recorded, in whatever pool the id has now: the pool that comes back claims it
 * (as a rebuild from the state would), and one that cannot hold it (another subnet) never
 * hands it out anyway, so it is neither claimed nor counted as a conflict.
 */
import { TaskState } from '@shoal/contracts';
import type { Endpoint, NetworkAttachment, PortConfig, PortProtocol, Task } from '@shoal/contracts';
import type { ClusterState, Network } from '../state';
import { AddressPool, addressOf, taskHolder, vipHolder } from './address-pool';
import { parseIpv4 } from '../net';
import { parseSubnet } from './subnets';
import { PortSpace } from './port-space';

export interface HeldAddress {
  readonly network: string;
  readonly address: number;
}
interface HeldPort {
  readonly protocol: PortProtocol;
  readonly port: number;
}
interface ServiceHoldings {
  readonly vips: readonly HeldAddress[];
  readonly ports: readonly HeldPort[];
}

/** What a release freed: the networks that have addresses again, and whether a port came free. */
export interface Freed {
  readonly networks: Set<string>;
  ports: boolean;
}
const nothingFreed = (): Freed => ({ networks: new Set(), ports: false });

/** A task holds its addresses from allocation until it ends (or leaves the store). */
export const holdsAddresses = (task: Task): boolean => task.status.state <= TaskState.RUNNING;

/** The ingress-mode ports of an endpoint, the ones the routing mesh holds cluster-wide. */
export const ingressPorts = (ports: readonly PortConfig[]): PortConfig[] =>
  ports.filter((p) => p.publishMode === 'ingress' && p.publishedPort !== undefined);

export class Ledger {
  readonly pools = new Map<string, AddressPool>();
  readonly ports = new PortSpace();
  private readonly tasks = new Map<string, readonly HeldAddress[]>();
  private readonly services = new Map<string, ServiceHoldings>();
  /** Holdings read from the log that clashed with another holder's (should never happen). */
  conflicts = 0;

  /** Starts over from the state: pools for allocated networks, then every holding it records. */
  rebuild(state: ClusterState): void {
    for (const _ of this.rebuildInSteps(state, Number.POSITIVE_INFINITY)) continue;
  }

  /**
   * `rebuild`, `step` services or tasks a step (the networks, few, in the first). Holdings
   * synced between steps (addNetwork, syncService, syncTask, as records are told) leave it
   * as if synced after: a sync makes a holder hold exactly what the state says, so syncing a
   * holder again holds nothing twice, and the steps still to come sync the rest from the
   * state as it is then (a task removed meanwhile is not reached).
   */
  *rebuildInSteps(state: ClusterState, step: number): Generator<void> {
    this.pools.clear();
    this.tasks.clear();
    this.services.clear();
    this.conflicts = 0;
    for (const network of state.networks.values()) this.addNetwork(network);
    let done = 0;
    for (const id of state.services.keys()) {
      this.syncService(state, id);
      if (++done % step === 0) yield;
    }
    for (const id of state.tasks.keys()) {
      this.syncTask(state, id);
      if (++done % step === 0) yield;
    }
  }

  /**
   * Opens the pool of a network that has its subnet, holding in it what is still recorded
   * on its id (left from a network removed under the same id).
   */
  addNetwork(network: Network): void {
    if (network.subnet === undefined || network.gateway === undefined || this.pools.has(network.id)) return;
    const subnet = parseSubnet(network.subnet);
    const gateway = parseIpv4(network.gateway);
    if (typeof subnet === 'string' || gateway === undefined) return;
    this.pools.set(network.id, new AddressPool(network.id, subnet, gateway));
    const on = (held: readonly HeldAddress[]): HeldAddress[] => held.filter((h) => h.network === network.id);
    for (const [id, held] of this.tasks) this.claimAll(on(held), taskHolder(id));
    for (const [id, holdings] of this.services) this.claimAll(on(holdings.vips), vipHolder(id));
  }

  /** Closes a network's pool; what its holders record on it stays recorded (see addNetwork). */
  removeNetwork(id: string): void {
    this.pools.delete(id);
  }

  /** Records addresses taken for a task's proposal (they are already held in their pools). */
  noteTask(taskId: string, held: readonly HeldAddress[]): void {
    if (held.length > 0) this.tasks.set(taskId, [...(this.tasks.get(taskId) ?? []), ...held]);
  }

  /** Records what was taken for a service's endpoint proposal, on top of what it already holds. */
  noteService(serviceId: string, vips: readonly HeldAddress[], ports: readonly HeldPort[]): void {
    const before = this.services.get(serviceId) ?? { vips: [], ports: [] };
    this.services.set(serviceId, { vips: [...before.vips, ...vips], ports: [...before.ports, ...ports] });
  }

  /** Makes the task hold exactly what the state says it holds now. */
  syncTask(state: ClusterState, taskId: string): Freed {
    const task = state.tasks.get(taskId);
    const want = task && holdsAddresses(task) ? this.resolve(task.attachments ?? []) : [];
    const before = this.tasks.get(taskId) ?? [];
    const holder = taskHolder(taskId);
    const freed = this.releaseExcept(before, want, holder);
    this.claimAll(want, holder);
    if (want.length > 0) this.tasks.set(taskId, want);
    else this.tasks.delete(taskId);
    return freed;
  }

  /** Makes the service hold exactly its endpoint in the state (nothing once it is gone). */
  syncService(state: ClusterState, serviceId: string): Freed {
    const endpoint: Endpoint | undefined = state.services.get(serviceId)?.endpoint;
    const vips = this.resolve((endpoint?.virtualIps ?? []).map((v) => ({ network: v.network, addresses: [v.address] })));
    const ports = ingressPorts(endpoint?.ports ?? []).map((p) => ({ protocol: p.protocol, port: p.publishedPort as number }));
    const before = this.services.get(serviceId) ?? { vips: [], ports: [] };
    const holder = vipHolder(serviceId);
    const freed = this.releaseExcept(before.vips, vips, holder);
    for (const p of before.ports) {
      if (ports.some((q) => q.protocol === p.protocol && q.port === p.port)) continue;
      if (this.ports.release(p.protocol, p.port, serviceId)) freed.ports = true;
    }
    this.claimAll(vips, holder);
    for (const p of ports) if (!this.ports.claim(p.protocol, p.port, serviceId)) this.conflicts++;
    if (vips.length > 0 || ports.length > 0) this.services.set(serviceId, { vips, ports });
    else this.services.delete(serviceId);
    return freed;
  }

  /** The virtual IP the service holds on `network`, if any (not one left from an earlier network under that id). */
  vipOf(serviceId: string, network: string): HeldAddress | undefined {
    const pool = this.pools.get(network);
    const holder = vipHolder(serviceId);
    return this.services.get(serviceId)?.vips.find((v) => v.network === network && pool?.holderOf(v.address) === holder);
  }

  /** How many tasks and services hold something (for tests and metrics). */
  get holders(): { readonly tasks: number; readonly services: number } {
    return { tasks: this.tasks.size, services: this.services.size };
  }

  private resolve(attachments: readonly NetworkAttachment[]): HeldAddress[] {
    const held: HeldAddress[] = [];
    for (const attachment of attachments) {
      for (const text of attachment.addresses) {
        const address = addressOf(text);
        if (address !== undefined) held.push({ network: attachment.network, address });
      }
    }
    return held;
  }

  private releaseExcept(before: readonly HeldAddress[], keep: readonly HeldAddress[], holder: string): Freed {
    const freed = nothingFreed();
    for (const held of before) {
      if (keep.some((k) => k.network === held.network && k.address === held.address)) continue;
      if (this.pools.get(held.network)?.release(held.address, holder)) freed.networks.add(held.network);
    }
    return freed;
  }

  private claimAll(held: readonly HeldAddress[], holder: string): void {
    for (const { network, address } of held) {
      const pool = this.pools.get(network);
      // An address its pool could never hand out is left from an earlier network under this id.
      if (pool?.canHold(address) && !pool.claim(address, holder)) this.conflicts++;
    }
  }
}
