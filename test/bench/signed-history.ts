/**
 * benchHistory with the audit's checkpoints among its records, as the reaper's owner
 * writes them: after every `every` records an AuditCheckpointed, signed by `key`, covering
 * the records since the last one (the previous checkpoint included), with the chain, the
 * state hash and the digests through its last. The log a verify of realistic shape reads.
 */
import { EVENT_TYPES, encode } from '@shoal/contracts';
import { AuditChain, Projection, recordDigest } from '@shoal/domain';
import { signCheckpoint } from '@shoal/runtime';
import type { SigningKey } from '@shoal/runtime';
import { benchHistory } from './history';
import type { HistoryOptions } from './history';

export interface SignedHistoryOptions extends HistoryOptions {
  readonly key: SigningKey;
  /** Records between checkpoints (the reaper's SHOAL_AUDIT_CHECKPOINT_RECORDS). */
  readonly every: number;
}

/** Yields encoded records, `records` of benchHistory's and the checkpoints among them, in log order. */
export function* signedHistory(options: SignedHistoryOptions): Generator<string> {
  const cluster = options.cluster ?? 'bench';
  const chain = new AuditChain();
  const projection = new Projection(undefined, 0, { keepRefusals: 0 });
  let digests: string[] = [];
  let from = 0;
  let checkpoints = 0;
  /** Whether a record other than a checkpoint came since the last checkpoint (only those call for one). */
  let news = false;
  const add = (value: string): string => {
    chain.add(chain.through + 1, value);
    projection.apply({ offset: chain.through, value });
    digests.push(recordDigest(value));
    return value;
  };
  const checkpoint = (): string => {
    const data = signCheckpoint(cluster, { from, through: chain.through, chain: chain.link, state: projection.hash(), digests: digests.join('') }, options.key);
    from = chain.through + 1;
    digests = [];
    checkpoints++;
    const by = { component: 'reaper', instance: 'reaper-audit-bench', term: 0 } as const;
    return encode({ id: `checkpoint-${checkpoints}`, type: 'AuditCheckpointed', v: EVENT_TYPES.AuditCheckpointed.v, cluster, at: new Date(Date.UTC(2026, 0, 1) + chain.through * 7).toISOString(), by, seq: checkpoints, data });
  };
  for (const value of benchHistory({ ...options, cluster })) {
    yield add(value);
    news = true;
    if (digests.length >= options.every) {
      yield add(checkpoint());
      news = false;
    }
  }
  if (news) yield add(checkpoint());
}
