import { MAX_LINE_BYTES, TaskLog } from './task-log';
import type { LogEntry } from './task-log';

const ALL = { stdout: true, stderr: true, tail: -1, sinceMs: 0 };
const text = (entries: readonly LogEntry[]): string[] => entries.map((entry) => `${entry.stream}:${entry.data.toString()}`);

/** A log whose clock reads `clock.now`. */
const logAt = (clock: { now: number }, options: { keptLines?: number; keptBytes?: number } = {}): TaskLog => new TaskLog({ now: () => clock.now, ...options });

describe('a task log', () => {
  it('cuts what a task writes into lines, per stream: a line waits for its newline across chunks', () => {
    const log = logAt({ now: 1 });
    log.write('stdout', 'hel');
    log.write('stderr', Buffer.from('oops'));
    log.write('stdout', 'lo\nwor');
    expect(text(log.read(ALL))).toEqual(['stdout:hello\n']);
    log.write('stderr', '!\n');
    log.write('stdout', 'ld\nand\nmore\n');
    expect(text(log.read(ALL))).toEqual(['stdout:hello\n', 'stderr:oops!\n', 'stdout:world\n', 'stdout:and\n', 'stdout:more\n']);
  });

  it('keeps an unfinished line when the task ends, with a newline, and takes nothing after', () => {
    const log = logAt({ now: 1 });
    log.write('stdout', 'done\nno newline');
    log.write('stderr', 'half');
    log.end();
    log.write('stdout', 'late\n');
    expect(text(log.read(ALL))).toEqual(['stdout:done\n', 'stdout:no newline\n', 'stderr:half\n']);
  });

  it('cuts a line longer than 16 KiB into 16 KiB pieces, only the last ending with the newline, however it was written', () => {
    const line = 'x'.repeat(MAX_LINE_BYTES * 2) + 'tail';
    const whole = logAt({ now: 1 });
    whole.write('stdout', `${line}\n`);
    const trickled = logAt({ now: 1 });
    for (let at = 0; at < line.length; at += 1000) trickled.write('stdout', line.slice(at, at + 1000));
    // Before the newline comes, the full pieces are there already: a line that never ends costs no more than 16 KiB waiting.
    expect(trickled.read(ALL).map((entry) => entry.data.length)).toEqual([MAX_LINE_BYTES, MAX_LINE_BYTES]);
    trickled.write('stdout', '\n');
    for (const log of [whole, trickled]) {
      const entries = log.read(ALL);
      expect(entries.map((entry) => entry.data.length)).toEqual([MAX_LINE_BYTES, MAX_LINE_BYTES, 5]);
      expect(Buffer.concat(entries.map((entry) => entry.data)).toString()).toBe(`${line}\n`);
    }
    // A line of exactly 16 KiB stays whole.
    const exact = logAt({ now: 1 });
    exact.write('stderr', `${'y'.repeat(MAX_LINE_BYTES)}\n`);
    expect(exact.read(ALL).map((entry) => entry.data.length)).toEqual([MAX_LINE_BYTES + 1]);
  });

  it('keeps only the newest lines: at most so many, and so many bytes', () => {
    const byLines = logAt({ now: 1 }, { keptLines: 3 });
    byLines.write('stdout', '1\n2\n3\n4\n5\n');
    expect(text(byLines.read(ALL))).toEqual(['stdout:3\n', 'stdout:4\n', 'stdout:5\n']);
    const byBytes = logAt({ now: 1 }, { keptBytes: 10 });
    byBytes.write('stdout', 'aaaa\nbbbb\ncc\n');
    expect(text(byBytes.read(ALL))).toEqual(['stdout:bbbb\n', 'stdout:cc\n']);
    // Many more than it keeps: still the newest, in order.
    const many = logAt({ now: 1 }, { keptLines: 100 });
    for (let i = 0; i < 5_000; i += 1) many.write('stdout', `${i}\n`);
    expect(many.size).toBe(100);
    expect(text(many.read(ALL))).toEqual(Array.from({ length: 100 }, (_, i) => `stdout:${4_900 + i}\n`));
  });

  it('reads the streams asked for, lines written since a time, and the last lines (tail counts both streams, as Docker reads)', () => {
    const clock = { now: 1_000 };
    const log = logAt(clock);
    log.write('stdout', 'o1\n');
    log.write('stderr', 'e1\n');
    clock.now = 2_000;
    log.write('stdout', 'o2\n');
    log.write('stderr', 'e2\n');
    expect(log.read(ALL).map((entry) => entry.at)).toEqual([1_000, 1_000, 2_000, 2_000]);
    expect(text(log.read({ ...ALL, stderr: false }))).toEqual(['stdout:o1\n', 'stdout:o2\n']);
    expect(text(log.read({ ...ALL, stdout: false }))).toEqual(['stderr:e1\n', 'stderr:e2\n']);
    expect(text(log.read({ ...ALL, sinceMs: 2_000 }))).toEqual(['stdout:o2\n', 'stderr:e2\n']);
    expect(text(log.read({ ...ALL, tail: 3 }))).toEqual(['stderr:e1\n', 'stdout:o2\n', 'stderr:e2\n']);
    expect(text(log.read({ ...ALL, tail: 3, stderr: false }))).toEqual(['stdout:o2\n']);
    expect(log.read({ ...ALL, tail: 0 })).toEqual([]);
    expect(log.read({ ...ALL, tail: 100 })).toHaveLength(4);
  });

  it("keeps a writer's own time of a line whole (an engine's, to the nanosecond), every piece of a long one; lines are chosen since a time by its ms", () => {
    const log = logAt({ now: 1 });
    const time = '2026-11-25T23:30:01.123456789Z';
    const at = Date.parse('2026-11-25T23:30:01.123Z');
    log.write('stdout', 'engine\n', { at, time });
    log.write('stderr', Buffer.from(`${'z'.repeat(MAX_LINE_BYTES)}tail\n`), { at: at + 1, time: '2026-11-25T23:30:01.124000001Z' });
    log.write('stdout', 'no time of its own\n', { at: at + 2 });
    log.write('stdout', 'now\n');
    expect(log.read(ALL).map((entry) => [entry.at, entry.time])).toEqual([
      [at, time],
      [at + 1, '2026-11-25T23:30:01.124000001Z'],
      [at + 1, '2026-11-25T23:30:01.124000001Z'],
      [at + 2, undefined],
      [1, undefined],
    ]);
    expect(log.read({ ...ALL, sinceMs: at + 1 }).map((entry) => entry.time)).toEqual(['2026-11-25T23:30:01.124000001Z', '2026-11-25T23:30:01.124000001Z', undefined]);
  });

  it('begins with the lines an earlier log kept, at their own times, within its bounds; followers hear only what is written after', () => {
    const log = logAt({ now: 50 }, { keptLines: 3 });
    const heard: LogEntry[] = [];
    log.follow((entry) => heard.push(entry));
    log.restore([1, 2, 3, 4].map((at) => ({ at, stream: 'stderr' as const, data: Buffer.from(`old ${at}\n`) })));
    expect(log.read(ALL).map((entry) => `${entry.at} ${entry.data.toString()}`)).toEqual(['2 old 2\n', '3 old 3\n', '4 old 4\n']);
    log.write('stdout', 'new\n');
    expect(text(log.read(ALL))).toEqual(['stderr:old 3\n', 'stderr:old 4\n', 'stdout:new\n']);
    expect(text(heard)).toEqual(['stdout:new\n']);
  });

  it('tells a follower each line written from then on, until it stops following', () => {
    const log = logAt({ now: 5 });
    log.write('stdout', 'before\n');
    const seen: LogEntry[] = [];
    const unfollow = log.follow((entry) => seen.push(entry));
    log.write('stderr', 'one\ntw');
    expect(text(seen)).toEqual(['stderr:one\n']);
    log.end();
    expect(text(seen)).toEqual(['stderr:one\n', 'stderr:tw\n']);
    unfollow();
    const other = logAt({ now: 5 });
    const stopped: LogEntry[] = [];
    other.follow((entry) => stopped.push(entry))();
    other.write('stdout', 'unseen\n');
    expect(stopped).toEqual([]);
    expect(seen[0]).toEqual({ at: 5, stream: 'stderr', data: Buffer.from('one\n') });
  });
});
