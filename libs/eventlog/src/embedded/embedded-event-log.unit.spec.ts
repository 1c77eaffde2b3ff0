import { spawn } from 'node:child_process';
import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describeEventLogContract } from '../contract/event-log.contract';
import { EmbeddedEventLog } from './embedded-event-log';

const dirs: string[] = [];
const tempDir = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-log-'));
  dirs.push(dir);
  return dir;
};
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describeEventLogContract('embedded', async () => {
  const dir = await tempDir();
  return {
    log: await EmbeddedEventLog.open({ dir, sync: false }),
    reopen: () => EmbeddedEventLog.open({ dir, sync: false }),
  };
});

const lines = async (dir: string) => (await readFile(join(dir, 'events.log'), 'utf8')).split('\n').filter(Boolean);

describe('EmbeddedEventLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await tempDir();
  });

  it('writes one JSON frame per record, the first of a batch saying how many there are', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await log.append([{ key: 'c1', value: 'one' }]);
    await log.append([
      { key: 'c1', value: 'two' },
      { key: 'c2', value: 'three' },
    ]);
    await log.close();
    expect((await lines(dir)).map((line) => JSON.parse(line))).toEqual([
      { k: 'c1', v: 'one' },
      { k: 'c1', v: 'two', n: 2 },
      { k: 'c2', v: 'three' },
    ]);
  });

  it('cuts a torn last line left by a crash, says so, and keeps every whole record', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await log.append([
      { key: 'c1', value: 'one' },
      { key: 'c1', value: 'two' },
    ]);
    await log.close();
    await appendFile(join(dir, 'events.log'), '{"k":"c1","v":"thr');
    const warnings: string[] = [];
    const again = await EmbeddedEventLog.open({ dir, onWarning: (message) => warnings.push(message) });
    expect(again.recovered).toMatch(/cut a torn tail of 18 bytes .* kept 2 records/);
    expect(warnings).toEqual([expect.stringContaining('cut a torn tail of 18 bytes')]);
    expect(values(await again.read(0))).toEqual(['one', 'two']);
    expect(await again.append([{ key: 'c1', value: 'three' }])).toEqual({ first: 2, last: 2 });
    await again.close();
    expect((await lines(dir)).map((line) => JSON.parse(line).v)).toEqual(['one', 'two', 'three']);
  });

  it('cuts a batch that a crash left half written, whole', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await log.append([{ key: 'c1', value: 'kept' }]);
    await log.close();
    // The first two frames of a batch of three reached the disk, and half of the third.
    await appendFile(join(dir, 'events.log'), '{"k":"c1","v":"a","n":3}\n{"k":"c1","v":"b"}\n{"k":"c1"');
    const again = await EmbeddedEventLog.open({ dir, onWarning: () => undefined });
    expect(values(await again.read(0))).toEqual(['kept']);
    expect(again.recovered).toMatch(/kept 1 records/);
    await again.close();
    expect(await lines(dir)).toEqual(['{"k":"c1","v":"kept"}']);
  });

  it('refuses to open a file damaged in the middle, and leaves it as it is', async () => {
    const content = '{"k":"c1","v":"one"}\n{"k":"c1","v":\n{"k":"c1","v":"three"}\n';
    await writeFile(join(dir, 'events.log'), content);
    await expect(EmbeddedEventLog.open({ dir })).rejects.toThrow(/damaged at byte 21 \(record 1\).*no torn tail/);
    expect(await readFile(join(dir, 'events.log'), 'utf8')).toBe(content);
    // The failed open left no lock behind.
    await expect(readFile(join(dir, 'LOCK'))).rejects.toThrow(/ENOENT/);
  });

  it('refuses a second process on the same directory, naming the first', async () => {
    const script = `
      require(${JSON.stringify(resolve(__dirname, '../../../../bin/register.js'))});
      const { EmbeddedEventLog } = require(${JSON.stringify(resolve(__dirname, 'embedded-event-log.ts'))});
      EmbeddedEventLog.open({ dir: process.argv[1] }).then(async (log) => {
        process.stdout.write('open\\n');
        process.stdin.once('data', async () => { await log.close(); process.exit(0); });
      }, (error) => { process.stdout.write('failed: ' + error.message + '\\n'); process.exit(1); });
    `;
    const child = spawn(process.execPath, ['-e', script, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
    try {
      await new Promise<void>((ready, fail) => {
        child.stdout.on('data', (chunk: Buffer) => (chunk.toString().includes('open') ? ready() : fail(new Error(chunk.toString()))));
        child.once('exit', (code) => fail(new Error(`the other process exited with ${code}`)));
      });
      await expect(EmbeddedEventLog.open({ dir })).rejects.toThrow(`is in use by process ${child.pid}`);
    } finally {
      const exited = new Promise((done) => child.once('exit', done));
      child.stdin.write('close\n');
      await exited;
    }
    // Once it has closed, the directory is free again.
    await (await EmbeddedEventLog.open({ dir })).close();
  }, 60_000);

  it('takes over a lock left by a process that is gone', async () => {
    await writeFile(join(dir, 'LOCK'), '999999999\n');
    const log = await EmbeddedEventLog.open({ dir });
    expect(await readFile(join(dir, 'LOCK'), 'utf8')).toBe(`${process.pid}\n`);
    await log.close();
  });

  it('takes over a lock carrying its own pid that it does not hold (a container restarted as pid 1)', async () => {
    await writeFile(join(dir, 'LOCK'), `${process.pid}\n`);
    const log = await EmbeddedEventLog.open({ dir });
    await log.close();
  });

  it('refuses a second open in the same process, and removes its lock on close', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await expect(EmbeddedEventLog.open({ dir })).rejects.toThrow(/already open in this process/);
    await log.close();
    await expect(readFile(join(dir, 'LOCK'))).rejects.toThrow(/ENOENT/);
  });

  it('appends 100,000 records in batches, fsync and all, and reads them back, also after a restart', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    const value = (i: number) => `{"type":"TaskStatusesReported","n":${i},"pad":"${'p'.repeat(120)}"}`;
    for (let b = 0; b < 100; b++) await log.append(Array.from({ length: 1_000 }, (_, i) => ({ key: 'c1', value: value(b * 1_000 + i) })));
    expect(await log.highWaterMark()).toBe(100_000);
    const all = await log.read(0);
    expect(all.every((r, i) => r.offset === i && r.value === value(i))).toBe(true);
    let followed = 0;
    await new Promise<void>((caughtUp) => {
      const subscription = log.follow(0, (batch) => void (followed += batch.length), { onCaughtUp: () => void subscription.stop().then(caughtUp) });
    });
    expect(followed).toBe(100_000);
    await log.close();
    const again = await EmbeddedEventLog.open({ dir });
    expect(await again.highWaterMark()).toBe(100_000);
    expect((await again.read(99_999))[0]?.value).toBe(value(99_999));
    await again.close();
  });
});

const values = (records: readonly { readonly value: string }[]) => records.map((r) => r.value);
