/**
 * node:crypto's SHA-256 for every hash the domain takes (state hashes, snapshots, the
 * audit): the same digests as the domain's own, a fraction of the time. Installed when
 * libs/runtime is loaded, so every process that runs a view has it.
 */
import { createHash } from 'node:crypto';
import { useSha256 } from '@shoal/domain';
import type { Sha256Digest } from '@shoal/domain';

export const nodeSha256 = (): Sha256Digest => {
  const hash = createHash('sha256');
  return {
    update: (input: string) => hash.update(input, 'utf8'),
    hex: () => hash.digest('hex'),
  };
};

useSha256(nodeSha256);
