/**
 * Join tokens in SwarmKit's shape: SWMTKN-1-<50 base-36 chars of the cluster's
 * digest>-<25 base-36 chars of secret>. The digest part is shared by both kinds; the
 * secret tells a worker token from a manager token, and rotation replaces it.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JoinTokens } from '@shoal/contracts';
import { base36 } from './object-id';

export const JOIN_TOKEN = /^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/;

const digestPart = (cluster: string): string => base36(createHash('sha256').update(`shoal-cluster:${cluster}`).digest(), 50);

export const joinToken = (cluster: string): string => `SWMTKN-1-${digestPart(cluster)}-${base36(randomBytes(16), 25)}`;

export const newJoinTokens = (cluster: string): JoinTokens => ({ worker: joinToken(cluster), manager: joinToken(cluster) });
