/** Networks: the ingress network and user-defined overlays. */

export type NetworkDriver = 'overlay';

export interface IpamConfig {
  /** CIDR, e.g. "10.0.1.0/24"; absent = carved from the default address pool. */
  readonly subnet?: string;
  readonly gateway?: string;
}

export interface NetworkSpec {
  readonly name: string;
  readonly driver: NetworkDriver;
  readonly labels?: Readonly<Record<string, string>>;
  /** The routing-mesh network every ingress-published port goes through. */
  readonly ingress?: boolean;
  /** Standalone containers may attach (Docker's --attachable). */
  readonly attachable?: boolean;
  readonly internal?: boolean;
  readonly ipam?: readonly IpamConfig[];
}

export interface NetworkAttachment {
  readonly network: string;
  /** Addresses with prefix length, e.g. "10.0.1.5/24". */
  readonly addresses: readonly string[];
}

/**
 * A task's attachment as its node is told of it: the network (its id, name, settings, and
 * the subnet and gateway the allocator gave it), the task's addresses on it, and its
 * service's virtual IP there.
 */
export interface AssignedNetwork {
  readonly id: string;
  readonly name: string;
  readonly subnet: string;
  readonly gateway: string;
  /** The task's addresses on it, with prefix length, e.g. "10.0.1.5/24". */
  readonly addresses: readonly string[];
  /** The routing-mesh network (the task publishes a port in ingress mode). */
  readonly ingress?: boolean;
  /** The network's `internal` setting: its tasks reach nothing beyond it. */
  readonly internal?: boolean;
  /** The network's `attachable` setting. */
  readonly attachable?: boolean;
  /** The virtual IP the allocator gave the task's service on this network (VIP mode), with prefix length, e.g. "10.0.1.2/24". */
  readonly virtualIp?: string;
}
