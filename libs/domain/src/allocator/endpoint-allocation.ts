/**
 * A service's endpoint: a virtual IP on each of its networks in VIP mode (none in DNSRR
 * mode), and its published ports — an ingress-mode port asked for is reserved if no other
 * service holds it, one not asked for is taken from 30000–32767 (the one it had is kept
 * across updates). Host-mode ports are passed on as given: nodes bind those.
 */
import type { Endpoint, PortConfig, PortProtocol, ServiceSpec } from '@shoal/contracts';
import type { ClusterState, Service } from '../state';
import { vipHolder } from './address-pool';
import type { AddressPool } from './address-pool';
import { formatSubnet } from '../net';
import type { HeldAddress, Ledger } from './ledger';
import { ingressPorts } from './ledger';
import { DYNAMIC_PORT_END, DYNAMIC_PORT_START, MAX_PORT } from './port-space';
import type { NetworkIndex } from './network-index';

export type EndpointOutcome =
  /** Nothing to allocate: the endpoint in the state is the one for this spec. */
  | { readonly kind: 'current' }
  | { readonly kind: 'allocated'; readonly endpoint: Endpoint }
  /** A network it attaches to has no subnet yet. */
  | { readonly kind: 'wait'; readonly network: string }
  | { readonly kind: 'failed'; readonly reason: string };

/** Whether a service has anything for the allocator to give it: published ports, or VIPs on networks. */
export const wantsEndpoint = (spec: ServiceSpec): boolean =>
  (spec.endpoint?.ports?.length ?? 0) > 0 || ((spec.endpoint?.mode ?? 'vip') === 'vip' && (spec.task.networks?.length ?? 0) > 0);

/** Its tasks may be allocated: the service needs no endpoint, or has the one for its current spec. */
export const endpointReady = (service: Service): boolean =>
  !wantsEndpoint(service.spec) || service.endpointVersion === service.version;

const publishesIngress = (spec: ServiceSpec): boolean => (spec.endpoint?.ports ?? []).some((p) => p.publishMode === 'ingress');

/** Takes (in `ledger`) what the service's current spec needs and returns its endpoint, or why not. */
export const allocateEndpoint = (
  state: ClusterState,
  service: Service,
  networks: NetworkIndex,
  ledger: Ledger,
  networkFailures: ReadonlyMap<string, string>,
  /** The ingress network is being created: wait for it rather than fail. */
  ingressComing = false,
): EndpointOutcome => {
  const { spec } = service;
  if (service.endpointVersion === service.version) return { kind: 'current' };
  if (!wantsEndpoint(spec)) {
    const held = service.endpoint && (service.endpoint.ports.length > 0 || service.endpoint.virtualIps.length > 0);
    return held ? { kind: 'allocated', endpoint: { virtualIps: [], ports: [] } } : { kind: 'current' };
  }
  const mode = spec.endpoint?.mode ?? 'vip';
  if (mode === 'dnsrr' && publishesIngress(spec)) {
    return { kind: 'failed', reason: `port published with ingress mode can't be used with dnsrr mode` };
  }
  const invalid = invalidPorts(spec.endpoint?.ports ?? []);
  if (invalid) return { kind: 'failed', reason: invalid };

  const takenPorts: { protocol: PortProtocol; port: number }[] = [];
  const takenVips: HeldAddress[] = [];
  const undo = (): void => {
    for (const p of takenPorts) ledger.ports.release(p.protocol, p.port, service.id);
    for (const v of takenVips) ledger.pools.get(v.network)?.release(v.address, vipHolder(service.id));
  };

  // Every network first, so that nothing is taken for a service that must wait.
  const targets: string[] = [];
  if (mode === 'vip') {
    if (publishesIngress(spec)) {
      if (!networks.ingress) {
        return ingressComing ? { kind: 'wait', network: '(ingress)' } : { kind: 'failed', reason: 'ingress network not found: ingress-mode published ports need it' };
      }
      targets.push(networks.ingress.id);
    }
    for (const attachment of spec.task.networks ?? []) {
      const network = networks.resolve(attachment.target);
      if (!network) return { kind: 'failed', reason: `network ${attachment.target} not found` };
      if (!targets.includes(network.id)) targets.push(network.id);
    }
    for (const id of targets) {
      if (ledger.pools.has(id)) continue;
      const failure = networkFailures.get(id);
      return failure
        ? { kind: 'failed', reason: `network ${state.networks.get(id)?.spec.name ?? id} could not be allocated: ${failure}` }
        : { kind: 'wait', network: id };
    }
  }

  const ports: PortConfig[] = [];
  const requested = new Set(ingressPorts(spec.endpoint?.ports ?? []).map((p) => `${p.protocol}/${p.publishedPort}`));
  // Ports it was given from the dynamic range, not asked for by name now: kept for the same target port.
  const reusable = ingressPorts(service.endpoint?.ports ?? []).filter(
    (p) => !requested.has(`${p.protocol}/${p.publishedPort}`) && (p.publishedPort as number) >= DYNAMIC_PORT_START && (p.publishedPort as number) <= DYNAMIC_PORT_END,
  );
  for (const port of spec.endpoint?.ports ?? []) {
    if (port.publishMode === 'host') {
      ports.push(port);
      continue;
    }
    if (port.publishedPort !== undefined) {
      const holder = ledger.ports.holderOf(port.protocol, port.publishedPort);
      if (holder !== undefined && holder !== service.id) {
        undo();
        const other = state.services.get(holder);
        return {
          kind: 'failed',
          reason: `port '${port.publishedPort}' is already in use by service '${other?.spec.name ?? holder}' (${holder}) as an ingress port`,
        };
      }
      if (holder === undefined) {
        ledger.ports.claim(port.protocol, port.publishedPort, service.id);
        takenPorts.push({ protocol: port.protocol, port: port.publishedPort });
      }
      ports.push(port);
      continue;
    }
    const before = reusable.findIndex((p) => p.protocol === port.protocol && p.targetPort === port.targetPort);
    if (before >= 0) {
      const [kept] = reusable.splice(before, 1);
      ports.push({ ...port, publishedPort: kept?.publishedPort as number });
      continue;
    }
    const dynamic = ledger.ports.takeDynamic(port.protocol, service.id);
    if (dynamic === undefined) {
      undo();
      return { kind: 'failed', reason: `no free published port left for ${port.protocol} in the range ${DYNAMIC_PORT_START}-${DYNAMIC_PORT_END}` };
    }
    takenPorts.push({ protocol: port.protocol, port: dynamic });
    ports.push({ ...port, publishedPort: dynamic });
  }

  const virtualIps: { network: string; address: string }[] = [];
  for (const id of targets) {
    const pool = ledger.pools.get(id) as AddressPool;
    const kept = ledger.vipOf(service.id, id);
    const address = kept?.address ?? pool.take(vipHolder(service.id));
    if (address === undefined) {
      undo();
      const name = state.networks.get(id)?.spec.name ?? id;
      return { kind: 'failed', reason: `could not allocate a virtual IP on network ${name}: no available IP addresses in ${formatSubnet(pool.subnet)}` };
    }
    if (!kept) takenVips.push({ network: id, address });
    virtualIps.push({ network: id, address: pool.format(address) });
  }

  ledger.noteService(service.id, takenVips, takenPorts);
  return { kind: 'allocated', endpoint: { virtualIps, ports } };
};

/** Ports out of range, or one published port given twice for the same protocol. */
const invalidPorts = (ports: readonly PortConfig[]): string | undefined => {
  const seen = new Set<string>();
  for (const port of ports) {
    if (!Number.isInteger(port.targetPort) || port.targetPort < 1 || port.targetPort > MAX_PORT) {
      return `invalid target port ${port.targetPort}: must be 1-${MAX_PORT}`;
    }
    if (port.publishedPort === undefined) continue;
    if (!Number.isInteger(port.publishedPort) || port.publishedPort < 1 || port.publishedPort > MAX_PORT) {
      return `invalid published port ${port.publishedPort}: must be 1-${MAX_PORT}`;
    }
    const key = `${port.protocol}/${port.publishedPort}/${port.publishMode}`;
    if (seen.has(key)) return `duplicate published port ${port.publishedPort}/${port.protocol}`;
    seen.add(key);
  }
  return undefined;
};
