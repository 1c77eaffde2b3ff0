/**
 * Join tokens in SwarmKit's shape: SWMTKN-1-<50 base-36 chars of digest>-<25 base-36 chars
 * of secret>. With a root CA (SHOAL_CA_DIR) the digest is the CA certificate's, which a
 * joining node pins; without one it is the cluster id's. The digest part is shared by both
 * kinds; the secret tells a worker token from a manager token, and rotation replaces it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { X509Certificate } from 'node:crypto';
import type { JoinTokens } from '@shoal/contracts';
import { base36 } from './object-id';
import { caDigest } from './pki/node-certificates';

export const JOIN_TOKEN = /^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/;

const digestPart = (cluster: string): string => base36(createHash('sha256').update(`shoal-cluster:${cluster}`).digest(), 50);

export const joinToken = (cluster: string, ca?: X509Certificate): string => `SWMTKN-1-${ca ? caDigest(ca) : digestPart(cluster)}-${base36(randomBytes(16), 25)}`;

export const newJoinTokens = (cluster: string, ca?: X509Certificate): JoinTokens => ({ worker: joinToken(cluster, ca), manager: joinToken(cluster, ca) });
