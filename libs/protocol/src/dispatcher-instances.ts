/**
 * Where dispatchers are, as the protocol tells it. Every dispatcher writes to the log as
 * `<instance id>@<host:port>` (the address agents and the API dial), so whoever reads the
 * log learns the active one's address from the writer of its OwnershipTaken; a standby
 * refuses a call with FAILED_PRECONDITION and names the active one in the
 * `shoal-dispatcher` trailer.
 */
import { Metadata } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';

/** The gRPC metadata key (trailer) naming the dispatcher that owns the cluster's partition. */
export const DISPATCHER_REDIRECT_KEY = 'shoal-dispatcher';

/** A dispatcher's address as agents dial it and dispatchers list it: host:port, an IPv6 host in brackets ("[::1]:2377"). */
export const isDispatcherAddress = (text: string): boolean => /^(\[[^\]\s]+\]|[^\s:,[\]]+):\d{1,5}$/.test(text);

export const instanceWithAddress = (instance: string, address: string): string => `${instance}@${address}`;

/** The address in an instance name made by instanceWithAddress: after its last '@'; undefined when it names none. */
export const addressOfInstance = (instance: string | undefined): string | undefined => {
  if (!instance) return undefined;
  const at = instance.lastIndexOf('@');
  const address = at < 0 ? '' : instance.slice(at + 1).trim();
  return address === '' ? undefined : address;
};

/** The active dispatcher's address a refusal names in its trailer, if it names one. */
export const redirectOf = (error: unknown): string | undefined => {
  const metadata = (error as Partial<ServiceError> | undefined)?.metadata;
  if (!(metadata instanceof Metadata)) return undefined;
  const value = metadata.get(DISPATCHER_REDIRECT_KEY)[0];
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};
