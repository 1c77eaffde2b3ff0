/**
 * Where agents find the active dispatcher. An instance names itself
 * `<instance id>@<address agents dial>` (instanceWithAddress, in libs/protocol); that name
 * is the writer of its OwnershipTaken, so a standby reads the active one's address from
 * the log and hands it to agents that dialled the wrong instance (the `shoal-dispatcher`
 * trailer).
 */
import { addressOfInstance } from '@shoal/protocol';

/** host:port, with brackets around an IPv6 host. */
export const hostPort = (host: string, port: number): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/**
 * What the active dispatcher tells agents (the session message's list): its own address
 * first, then those of the other instances in line for its lease, each once, sorted.
 * Instances named without an address are left out.
 */
export const dispatcherAddresses = (own: string, members: readonly string[]): string[] => {
  const others = members.map(addressOfInstance).filter((address): address is string => address !== undefined && address !== own);
  return [own, ...[...new Set(others)].sort()];
};

/** The host part of a gRPC peer ("127.0.0.1:53412", "[::1]:53412", "ipv4:10.0.0.2:5000"). */
export const peerHost = (peer: string): string => {
  const bare = peer.replace(/^(ipv4|ipv6|unix):/, '');
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(bare);
  if (bracketed?.[1]) return bracketed[1];
  const colon = bare.lastIndexOf(':');
  return colon > 0 && bare.indexOf(':') === colon ? bare.slice(0, colon) : bare;
};
