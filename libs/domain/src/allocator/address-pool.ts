/**
 * One network's IPAM: which of its subnet's addresses are held, and by whom. The network
 * address, the broadcast address and the gateway are never handed out. New addresses are
 * taken in order after the last one taken (wrapping around), so an address just freed is
 * not reused at once — as Docker's serial allocation does.
 */
import { formatIpv4, parseIpv4, subnetContains, subnetSize } from '../net';
import type { Ipv4Subnet } from '../net';

/** Who holds an address: a task ("task:<id>") or a service's virtual IP ("vip:<id>"). */
export type Holder = string;

export const taskHolder = (taskId: string): Holder => `task:${taskId}`;
export const vipHolder = (serviceId: string): Holder => `vip:${serviceId}`;

export class AddressPool {
  private readonly held = new Map<number, Holder>();
  private readonly size: number;
  private readonly reserved: ReadonlySet<number>;
  /** Addresses that could ever be handed out. */
  readonly capacity: number;
  private cursor: number;

  constructor(
    readonly network: string,
    readonly subnet: Ipv4Subnet,
    readonly gateway: number,
  ) {
    this.size = subnetSize(subnet);
    this.reserved = new Set([subnet.base, subnet.base + this.size - 1, gateway]);
    this.capacity = this.size - [...this.reserved].filter((a) => subnetContains(subnet, a)).length;
    this.cursor = subnet.base + 1;
  }

  get available(): number {
    return this.capacity - this.held.size;
  }

  holderOf(address: number): Holder | undefined {
    return this.held.get(address);
  }

  /** Whether `address` is one this pool could ever hand out: in the subnet, not reserved. */
  canHold(address: number): boolean {
    return subnetContains(this.subnet, address) && !this.reserved.has(address);
  }

  /**
   * Marks `address` as held by `holder` (an allocation read back from the log). False when
   * it is not in the subnet, is reserved, or someone else holds it.
   */
  claim(address: number, holder: Holder): boolean {
    if (!this.canHold(address)) return false;
    const current = this.held.get(address);
    if (current !== undefined) return current === holder;
    this.held.set(address, holder);
    return true;
  }

  /** The next free address, now held by `holder`; undefined when the subnet is exhausted. */
  take(holder: Holder): number | undefined {
    if (this.available <= 0) return undefined;
    const first = this.subnet.base;
    for (let i = 0; i < this.size; i++) {
      const candidate = first + ((this.cursor - first + i) % this.size);
      if (this.reserved.has(candidate) || this.held.has(candidate)) continue;
      this.held.set(candidate, holder);
      this.cursor = candidate + 1;
      return candidate;
    }
    return undefined;
  }

  /** Frees `address` if `holder` holds it. */
  release(address: number, holder: Holder): boolean {
    if (this.held.get(address) !== holder) return false;
    this.held.delete(address);
    return true;
  }

  /** "10.0.1.5/24" */
  format(address: number): string {
    return `${formatIpv4(address)}/${this.subnet.prefix}`;
  }
}

/** "10.0.1.5/24" (or a bare "10.0.1.5"), as a pool writes an address → the address's number, or undefined. */
export const addressOf = (withPrefix: string): number | undefined => parseIpv4(withPrefix.split('/')[0] ?? '');
