import { TaskLog } from '../task-log';
import { FrameReader, RawReader, splitTimestamp } from './container-logs';

const frame = (stream: number, text: string): Buffer => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

const lines = (log: TaskLog): [string, string, number, string | undefined][] =>
  log.read({ stdout: true, stderr: true, tail: -1, sinceMs: 0 }).map((entry) => [entry.stream, entry.data.toString(), entry.at, entry.time]);

describe('container logs', () => {
  it('splits the engine’s time from the message: its text whole (nanoseconds), and read to the ms', () => {
    const [at, rest] = splitTimestamp(Buffer.from('2026-11-25T23:30:01.123456789Z hello\n'));
    expect(at).toEqual({ at: Date.parse('2026-11-25T23:30:01.123Z'), time: '2026-11-25T23:30:01.123456789Z' });
    expect(rest.toString()).toBe('hello\n');
    expect(splitTimestamp(Buffer.from('no time here\n'))[0]).toBeUndefined();
  });

  it('reads multiplexed frames, split anywhere across chunks, into stdout and stderr at their times', () => {
    const log = new TaskLog({ now: () => 1 });
    const reader = new FrameReader(log);
    const stream = Buffer.concat([frame(1, '2026-11-25T23:30:01.000000001Z out\n'), frame(2, '2026-11-25T23:30:02.5Z err\n')]);
    for (let i = 0; i < stream.length; i += 5) reader.push(stream.subarray(i, i + 5));
    expect(lines(log)).toEqual([
      ['stdout', 'out\n', Date.parse('2026-11-25T23:30:01.000Z'), '2026-11-25T23:30:01.000000001Z'],
      ['stderr', 'err\n', Date.parse('2026-11-25T23:30:02.500Z'), '2026-11-25T23:30:02.5Z'],
    ]);
  });

  it('reads a TTY’s raw stream as stdout, line by line, the unfinished last one at its end', () => {
    const log = new TaskLog({ now: () => 1 });
    const reader = new RawReader(log);
    reader.push(Buffer.from('2026-11-25T23:30:01Z one\n2026-11-25T23:30:0'));
    reader.push(Buffer.from('2Z two'));
    reader.end();
    log.end();
    expect(lines(log)).toEqual([
      ['stdout', 'one\n', Date.parse('2026-11-25T23:30:01Z'), '2026-11-25T23:30:01Z'],
      ['stdout', 'two\n', Date.parse('2026-11-25T23:30:02Z'), '2026-11-25T23:30:02Z'],
    ]);
  });
});
