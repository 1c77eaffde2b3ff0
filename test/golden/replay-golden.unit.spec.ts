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

const replay = (values: readonly string[]): { hash: string; verdicts: string; halted?: number } => {
  const projection = new Projection(undefined, 0, { keepRefusals: Infinity });
  projection.applyAll(values.map((value, offset) => ({ offset, value })));
  const verdicts = createHash('sha256')
    .update(JSON.stringify({ tally: projection.tally, refusals: projection.refusals.map(({ offset, status, reasons }) => [offset, status, reasons]) }))
    .digest('hex');
  return { hash: stateHash(projection.state), verdicts, ...(projection.halted ? { halted: projection.halted.offset } : {}) };
};

const lines = (file: string): string[] => readFileSync(join(__dirname, file), 'utf8').split('\n').filter((line) => line.length > 0);

describe('logs written before replay as they did', () => {
  it('a docker CLI session against npm start', () => {
    expect(replay(lines('docker-session.jsonl'))).toEqual({
      hash: 'dfa0c677918b49be901fc01d9b164e90487886c1af69197e935986463363cb64',
      verdicts: 'aeea5fd5dcca77a6c4d36909f3349b3564f0215cc5ff4ffd7b21746476bc5fdb',
    });
  });

  // Eight of these ten hold a record of a version no build reads (ServiceRemoved v7), which
  // replay skipped as poison until readers learned to stop there instead (Projection.halted):
  // this digest is of each history up to that record, and it moved with that change alone.
  it('ten generated histories, eight of them with a record of a future version', () => {
    const results = lines('generated-histories.jsonl').map((line) => replay(JSON.parse(line) as string[]));
    expect(createHash('sha256').update(JSON.stringify(results)).digest('hex')).toBe('fc54da9442bef9bee1cde5f40214baedae4fbdbb9f651e17ed63389126808a41');
  });

  it('ten generated histories that this build reads to the end', () => {
    const results = lines('generated-histories-readable.jsonl').map((line) => replay(JSON.parse(line) as string[]));
    expect(createHash('sha256').update(JSON.stringify(results)).digest('hex')).toBe('752569ad25e65a3a163b29ddc6ae6f6e68f38e0ee9530f8d8ffed0da7c18cfd9');
  });
});
