/**
 * The role a verified client certificate carries (`--tlsverify`): its subject's OU, as
 * `shoal certs issue --role` writes it. `operator` and `auditor` are the bearer tokens'
 * roles; `manager` is an operator too (a manager's node certificate, as SwarmKit's
 * swarm-manager). Anything else — `worker`, another unit, none — may not use the API.
 */
import { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { Role } from './tokens';

/** What the certificate says: a role the API grants, or the OU it did carry. */
export type CertificateRole = { readonly granted: true; readonly role: Role } | { readonly granted: false; readonly unit: string };

const GRANTS: Readonly<Record<string, Role>> = { operator: 'operator', manager: 'operator', auditor: 'auditor' };

/** The grant for one OU value (a certificate with several units gets none: one role per certificate). */
export const roleOfUnit = (unit: string | readonly string[] | undefined): CertificateRole => {
  if (unit === undefined) return { granted: false, unit: '' };
  if (typeof unit !== 'string') return { granted: false, unit: unit.join('+') };
  const role = GRANTS[unit];
  return role ? { granted: true, role } : { granted: false, unit };
};

/**
 * The role of the certificate the client presented on this connection, when the handshake
 * verified it against the CA; undefined for the socket, plain TCP, or TLS without a verified client.
 */
export const verifiedClientRole = (socket: Socket): CertificateRole | undefined => {
  if (!(socket instanceof TLSSocket) || !socket.authorized) return undefined;
  const peer = socket.getPeerCertificate();
  if (!peer || !peer.subject) return undefined;
  return roleOfUnit(peer.subject.OU);
};
