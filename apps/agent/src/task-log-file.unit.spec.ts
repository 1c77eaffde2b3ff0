import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskLog } from './task-log';
import type { LogEntry } from './task-log';
import { TaskLogFiles, decodeEntries, encodeEntry } from './task-log-file';

const ALL = { stdout: true, stderr: true, tail: -1, sinceMs: 0 };
const text = (entries: readonly LogEntry[]): string[] => entries.map((entry) => `${entry.at} ${entry.stream}:${entry.data.toString('latin1')}`);
const entry = (at: number, stream: LogEntry['stream'], data: string | Buffer): LogEntry => ({ at, stream, data: Buffer.from(data) });

describe('task log files', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'shoal-task-logs-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** What a task's file holds, as entries. */
  const fileOf = (taskId: string) => decodeEntries(readFileSync(join(dir, taskId), 'utf8'));

  it('reads back what it wrote: one JSON line an entry, text as text, other bytes as base64', () => {
    const entries = [entry(1_700_000_000_000, 'stdout', 'hello\n'), entry(1_700_000_000_001, 'stderr', 'naïve "quoted"\\ line\n'), entry(2, 'stdout', Buffer.from([0xff, 0xfe, 0x0a])), entry(3, 'stdout', 'a piece of a long line')];
    const written = entries.map(encodeEntry).join('');
    expect(written.split('\n')[0]).toBe('{"at":1700000000000,"stream":"stdout","data":"hello\\n"}');
    expect(written.split('\n')[2]).toBe('{"at":2,"stream":"stdout","base64":"//4K"}');
    expect(decodeEntries(written)).toEqual({ entries, clean: true });
  });

  it('skips a line torn by a crash mid-write, and any other line that does not read as an entry', () => {
    const good = [entry(1, 'stdout', 'one\n'), entry(2, 'stderr', 'two\n')];
    const torn = `${encodeEntry(good[0]!)}{"at":5,"stream":"stdout"}\nnot json\n${encodeEntry(good[1]!)}{"at":3,"stream":"stdout","da`;
    expect(decodeEntries(torn)).toEqual({ entries: good, clean: false });
    // A whole entry whose newline was not written is read, but the file is not clean: nothing may be appended to it as it is.
    expect(decodeEntries(encodeEntry(good[0]!).trimEnd())).toEqual({ entries: [good[0]], clean: false });
    expect(decodeEntries('')).toEqual({ entries: [], clean: true });
  });

  it("keeps each task's log in its file as it is written, appended in batches", async () => {
    const files = await TaskLogFiles.open(join(dir, 'logs'));
    dir = join(dir, 'logs');
    const log = new TaskLog({ now: () => 7 });
    files.keep('t1', log);
    log.write('stdout', 'first\nsecond\n');
    log.write('stderr', 'oops\n');
    await files.flush();
    log.write('stdout', 'third\nunfinished');
    log.end();
    await files.flush();
    expect(fileOf('t1')).toEqual({ entries: log.read(ALL), clean: true });
    expect(text(fileOf('t1').entries)).toEqual(['7 stdout:first\n', '7 stdout:second\n', '7 stderr:oops\n', '7 stdout:third\n', '7 stdout:unfinished\n']);
  });

  it('writes a file again from what the log keeps once it holds twice the lines or bytes the log keeps, through a temp file', async () => {
    const files = await TaskLogFiles.open(dir, { keptLines: 3, keptBytes: 100 });
    const log = new TaskLog({ now: () => 1, keptLines: 3, keptBytes: 100 });
    files.keep('t', log);
    for (let line = 1; line <= 6; line += 1) {
      log.write('stdout', `line ${line}\n`);
      await files.flush();
    }
    // Twice the log's 3 lines: appended, every one.
    expect(fileOf('t').entries).toHaveLength(6);
    log.write('stdout', 'line 7\n');
    await files.flush();
    expect(text(fileOf('t').entries)).toEqual(['1 stdout:line 5\n', '1 stdout:line 6\n', '1 stdout:line 7\n']);
    log.write('stdout', 'line 8\n');
    await files.flush();
    expect(fileOf('t').entries).toHaveLength(4);
    // Bytes count too: 28 bytes in the file, then 60 (appended), then 80 and 40 — past twice 100, so it holds what the log keeps.
    log.write('stdout', `${'x'.repeat(59)}\n`);
    await files.flush();
    expect(fileOf('t').entries.map((kept) => kept.data.length)).toEqual([7, 7, 7, 7, 60]);
    log.write('stdout', `${'y'.repeat(79)}\n${'z'.repeat(39)}\n`);
    await files.flush();
    expect(fileOf('t').entries.map((kept) => kept.data.length)).toEqual([40]);
    expect(fileOf('t').entries).toEqual(log.read(ALL));
    expect(readdirSync(dir)).toEqual(['t']);
  });

  it('begins the log of a task an earlier agent kept with what its file holds, torn line aside, and appends after it', async () => {
    writeFileSync(join(dir, 't'), `${encodeEntry(entry(1, 'stdout', 'before\n'))}${encodeEntry(entry(2, 'stderr', 'crashed\n'))}{"at":3,"str`);
    writeFileSync(join(dir, 'u.tmp'), 'a rewrite cut short');
    const files = await TaskLogFiles.open(dir);
    expect(files.leftover).toEqual(['t']);
    expect(existsSync(join(dir, 'u.tmp'))).toBe(false);
    const log = new TaskLog({ now: () => 10 });
    const heard: LogEntry[] = [];
    log.follow((written) => heard.push(written));
    files.keep('t', log);
    log.write('stdout', 'after\n');
    await files.flush();
    expect(text(log.read(ALL))).toEqual(['1 stdout:before\n', '2 stderr:crashed\n', '10 stdout:after\n']);
    // Only what was written now is news to a follower.
    expect(text(heard)).toEqual(['10 stdout:after\n']);
    // The torn line is gone from the file, written again before the new line went after it.
    expect(fileOf('t')).toEqual({ entries: log.read(ALL), clean: true });
    expect(files.leftover).toEqual([]);
  });

  it('removes the files of tasks the node no longer has (the first time it is told), and a task’s file when the node forgets it', async () => {
    for (const taskId of ['kept', 'gone-1', 'gone-2']) writeFileSync(join(dir, taskId), encodeEntry(entry(1, 'stdout', `${taskId}\n`)));
    const files = await TaskLogFiles.open(dir);
    files.keepOnly(new Set(['kept', 'new']));
    const kept = files.keep('kept', new TaskLog());
    const fresh = new TaskLog();
    const made = files.keep('new', fresh);
    fresh.write('stdout', 'hi\n');
    await files.flush();
    expect(readdirSync(dir).sort()).toEqual(['kept', 'new']);
    // A later set removes nothing that was not left by an earlier agent.
    files.keepOnly(new Set(['kept']));
    await files.flush();
    expect(readdirSync(dir).sort()).toEqual(['kept', 'new']);
    await made.remove();
    fresh.write('stdout', 'after it was forgotten\n');
    await kept.remove();
    await files.flush();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('says once that it cannot write, and the task and its log in memory go on', async () => {
    const said: string[] = [];
    const files = await TaskLogFiles.open(join(dir, 'logs'), { say: (line) => said.push(line) });
    rmSync(join(dir, 'logs'), { recursive: true });
    writeFileSync(join(dir, 'logs'), 'a file where the directory was');
    const logs = [new TaskLog(), new TaskLog()];
    logs.forEach((log, index) => files.keep(`t${index}`, log));
    for (const log of logs) log.write('stdout', 'line\n');
    await files.flush();
    for (const log of logs) log.write('stdout', 'another\n');
    await files.flush();
    expect(said).toEqual([expect.stringMatching(/^task logs in .*logs could not be written \(.*\): task output is kept in memory/)]);
    expect(logs.map((log) => log.size)).toEqual([2, 2]);
  });
});
