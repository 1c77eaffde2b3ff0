/**
 * Networks ↔ Docker's shapes: a NetworkCreateRequest becomes a NetworkSpec (or a 400
 * naming the field Shoal cannot accept), a Network becomes Docker's network resource.
 */
import type { IpamConfig, NetworkSpec } from '@shoal/contracts';
import { parseIpv4, subnetContains, subnetsOverlap } from '@shoal/domain';
import type { ClusterState, Network } from '@shoal/domain';
import { SpecError } from './spec-error';
import { ipamSubnet } from './ipam';

/** SwarmKit's rule for object names: a DNS name component. */
export const NETWORK_NAME = /^[a-zA-Z0-9](?:[-_.]*[A-Za-z0-9]+)*$/;

/** A network create body, decoded (NETWORK_CREATE). */
export interface DockerNetworkCreate {
  readonly Name?: string;
  readonly Driver?: string;
  readonly Scope?: string;
  readonly EnableIPv6?: boolean;
  readonly IPAM?: {
    readonly Driver?: string;
    readonly Options?: Record<string, string>;
    readonly Config?: readonly (DockerIpamConfig & { readonly IPRange?: string; readonly AuxiliaryAddresses?: Record<string, string> })[];
  };
  readonly Internal?: boolean;
  readonly Attachable?: boolean;
  readonly Ingress?: boolean;
  readonly ConfigOnly?: boolean;
  readonly ConfigFrom?: { readonly Network?: string };
  readonly Options?: Record<string, string>;
  readonly Labels?: Record<string, string>;
}

export interface DockerIpamConfig {
  readonly Subnet?: string;
  readonly Gateway?: string;
}

export interface DockerNetwork {
  readonly Name: string;
  readonly Id: string;
  readonly Created: string;
  readonly Scope: 'swarm';
  readonly Driver: string;
  readonly EnableIPv4: boolean;
  readonly EnableIPv6: boolean;
  readonly IPAM: { readonly Driver: string; readonly Options: Record<string, string> | null; readonly Config: readonly DockerIpamConfig[] };
  readonly Internal: boolean;
  readonly Attachable: boolean;
  readonly Ingress: boolean;
  readonly ConfigFrom: { readonly Network: string };
  readonly ConfigOnly: boolean;
  readonly Containers: Record<string, never>;
  readonly Options: Record<string, string>;
  /** null when it has none, as SwarmKit gives a swarm network's empty labels. */
  readonly Labels: Record<string, string> | null;
}

/** Names Docker reserves for its local networks. */
export const PREDEFINED_NETWORKS: readonly string[] = ['bridge', 'host', 'none', 'default'];

/** The subnets a network holds: the one it was allocated, or those its spec asks for. */
const subnetsOf = (network: Network): string[] =>
  network.subnet ? [network.subnet] : (network.spec.ipam ?? []).flatMap((config) => (config.subnet ? [config.subnet] : []));

export const fromNetworkCreate = (body: DockerNetworkCreate, state: ClusterState): NetworkSpec => {
  const name = body.Name ?? '';
  if (name === '') throw new SpecError('Name', 'a network name is required');
  if (name.length > 63 || !NETWORK_NAME.test(name)) {
    throw new SpecError('Name', `"${name}" must be valid as a DNS name component (letters, digits, "-", "_" and ".", starting and ending with a letter or digit, at most 63)`);
  }
  const driver = body.Driver?.trim() || 'overlay';
  if (driver !== 'overlay') {
    throw new SpecError('Driver', `driver "${driver}" is not supported: Shoal's networks are swarm-scoped overlays (docker network create -d overlay)`);
  }
  if (body.Scope && body.Scope !== 'swarm') throw new SpecError('Scope', `scope "${body.Scope}" is not supported: overlay networks are swarm-scoped`);
  if (body.Ingress && body.Attachable) throw new SpecError('Attachable', 'an ingress network cannot be attachable');
  if (body.EnableIPv6) throw new SpecError('EnableIPv6', 'IPv6 is not supported');
  if (body.ConfigOnly || body.ConfigFrom?.Network) throw new SpecError('ConfigOnly', 'config-only networks are not supported');
  // Nothing accepted is dropped: driver options are for a network driver Shoal does not run.
  if (Object.keys(body.Options ?? {}).length > 0) throw new SpecError('Options', `driver options (${Object.keys(body.Options ?? {}).join(', ')}) are not supported: Shoal's networks run no network driver`);
  if (Object.keys(body.IPAM?.Options ?? {}).length > 0) throw new SpecError('IPAM.Options', 'IPAM driver options are not supported');
  const ipamDriver = body.IPAM?.Driver?.trim() || 'default';
  if (ipamDriver !== 'default') throw new SpecError('IPAM.Driver', `IPAM driver "${ipamDriver}" is not supported, only "default"`);

  const ipam: IpamConfig[] = [];
  (body.IPAM?.Config ?? []).forEach((config, i) => {
    const field = `IPAM.Config[${i}]`;
    const subnet = config.Subnet ? ipamSubnet(config.Subnet) : undefined;
    if (config.Subnet && !subnet) throw new SpecError(`${field}.Subnet`, 'must be an IPv4 subnet in CIDR notation with no host bits set (e.g. 10.0.9.0/24)');
    if (config.Gateway && parseIpv4(config.Gateway.trim()) === undefined) throw new SpecError(`${field}.Gateway`, 'must be an IPv4 address');
    if (config.Gateway && !config.Subnet) throw new SpecError(`${field}.Gateway`, 'a gateway needs a subnet');
    if (config.IPRange) throw new SpecError(`${field}.IPRange`, 'IP ranges are not supported');
    if (Object.keys(config.AuxiliaryAddresses ?? {}).length > 0) throw new SpecError(`${field}.AuxiliaryAddresses`, 'auxiliary addresses are not supported');
    if (subnet && config.Gateway && !subnetContains(subnet, parseIpv4(config.Gateway.trim())!)) {
      throw new SpecError(`${field}.Gateway`, `${config.Gateway} is not in subnet ${config.Subnet}`);
    }
    if (subnet) {
      for (const network of state.networks.values()) {
        for (const taken of subnetsOf(network)) {
          const other = ipamSubnet(taken);
          if (other && subnetsOverlap(subnet, other)) throw new SpecError(`${field}.Subnet`, `${config.Subnet} overlaps subnet ${taken} of network ${network.spec.name}`);
        }
      }
    }
    ipam.push({ ...(config.Subnet ? { subnet: config.Subnet } : {}), ...(config.Gateway ? { gateway: config.Gateway } : {}) });
  });

  return {
    name,
    driver: 'overlay',
    ...(body.Labels && Object.keys(body.Labels).length > 0 ? { labels: { ...body.Labels } } : {}),
    ...(body.Ingress ? { ingress: true } : {}),
    ...(body.Attachable ? { attachable: true } : {}),
    ...(body.Internal ? { internal: true } : {}),
    ...(ipam.length > 0 ? { ipam } : {}),
  };
};

export const toDockerNetwork = (network: Network): DockerNetwork => {
  const { spec } = network;
  const config: DockerIpamConfig[] = network.subnet
    ? [{ Subnet: network.subnet, ...(network.gateway ? { Gateway: network.gateway } : {}) }]
    : (spec.ipam ?? []).map((c) => ({ ...(c.subnet ? { Subnet: c.subnet } : {}), ...(c.gateway ? { Gateway: c.gateway } : {}) }));
  return {
    Name: spec.name,
    Id: network.id,
    Created: network.createdAt,
    Scope: 'swarm',
    Driver: spec.driver,
    EnableIPv4: true,
    EnableIPv6: false,
    IPAM: { Driver: 'default', Options: null, Config: config },
    Internal: spec.internal ?? false,
    Attachable: spec.attachable ?? false,
    Ingress: spec.ingress ?? false,
    ConfigFrom: { Network: '' },
    ConfigOnly: false,
    Containers: {},
    Options: {},
    Labels: spec.labels && Object.keys(spec.labels).length > 0 ? { ...spec.labels } : null,
  };
};

/** The services whose tasks attach to the network (by its id or its name). */
export const servicesUsing = (state: ClusterState, network: Network): string[] =>
  [...state.services.values()]
    .filter((service) => service.spec.task.networks?.some((n) => n.target === network.id || n.target === network.spec.name))
    .map((service) => service.spec.name);
