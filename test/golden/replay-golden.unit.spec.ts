/**
 * Logs written by earlier builds replay to the same state and the same verdicts: an audit
 * of a log kept forever depends on it. Two logs are kept here: a docker CLI session against
 * `npm start` (networks, configs, constraints, host and ingress ports, a global service,
 * restarts, a job, a rolling update and its rollback, a drain) and ten generated histories
 * (every event type, refusals, poison and redeliveries). A change that moves either digest
 * changes what an existing log means: that needs an upcaster, not a new expectation.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Projection, stateHash } from '@shoal/domain';

/**
 * The state hash, and the digest of the verdicts (the tally and every refusal). How many
 * records were upcast is kept apart: it says how this build reads the log, not what the log
 * means, and it grows whenever a record type gets a new version.
 */
const replay = (values: readonly string[]): { hash: string; verdicts: string; halted?: number } => {
  const projection = new Projection(undefined, 0, { keepRefusals: Infinity });
  projection.applyAll(values.map((value, offset) => ({ offset, value })));
  const { upcast: _upcast, ...tally } = projection.tally;
  const verdicts = createHash('sha256')
    .update(JSON.stringify({ tally, refusals: projection.refusals.map(({ offset, status, reasons }) => [offset, status, reasons]) }))
    .digest('hex');
  return { hash: stateHash(projection.state), verdicts, ...(projection.halted ? { halted: projection.halted.offset } : {}) };
};

const upcastIn = (values: readonly string[]): number => {
  const projection = new Projection();
  projection.applyAll(values.map((value, offset) => ({ offset, value })));
  return projection.tally.upcast;
};

const lines = (file: string): string[] => readFileSync(join(__dirname, file), 'utf8').split('\n').filter((line) => line.length > 0);

describe('logs written before replay as they did', () => {
  it('a docker CLI session against npm start', () => {
    expect(replay(lines('docker-session.jsonl'))).toEqual({
      hash: 'dfa0c677918b49be901fc01d9b164e90487886c1af69197e935986463363cb64',
      verdicts: '8f80cebb4c44146c4d0c6988632327208411c071cc021b56093f95ec749b98bc',
    });
  });

  // Eight of these ten hold a record of a version no build reads (ServiceRemoved v7), which
  // replay skipped as poison until readers learned to stop there instead (Projection.halted):
  // this digest is of each history up to that record, and it moved with that change alone.
  it('ten generated histories, eight of them with a record of a future version', () => {
    const results = lines('generated-histories.jsonl').map((line) => replay(JSON.parse(line) as string[]));
    expect(createHash('sha256').update(JSON.stringify(results)).digest('hex')).toBe('d6582dae5adc3d248360ff79146c4ae457e1c2bc82b759e5827af4871232add6');
  });

  it('ten generated histories that this build reads to the end', () => {
    const results = lines('generated-histories-readable.jsonl').map((line) => replay(JSON.parse(line) as string[]));
    expect(createHash('sha256').update(JSON.stringify(results)).digest('hex')).toBe('1df5020124e9313bf6d50833ab492810d990f9f12dd7c4e66a3ca34c24777be3');
  });

  // Read at version 1 and upcast: each ClusterInitialized and JoinTokensRotated, whose
  // tokens in the clear version 2 reads as they are (log level 5 seals new ones).
  it('upcasts the records written at an older version, and only those', () => {
    expect(upcastIn(lines('docker-session.jsonl'))).toBe(1);
    expect(lines('generated-histories.jsonl').map((line) => upcastIn(JSON.parse(line) as string[]))).toEqual([0, 0, 5, 2, 5, 1, 1, 0, 9, 1]);
    expect(lines('generated-histories-readable.jsonl').map((line) => upcastIn(JSON.parse(line) as string[]))).toEqual([0, 4, 7, 9, 5, 1, 3, 0, 15, 3]);
  });
});
