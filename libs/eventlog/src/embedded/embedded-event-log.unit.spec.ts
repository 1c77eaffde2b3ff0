import { mkdtemp, readFile, rm, appendFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventLogContract } from '../contract/event-log.contract';
import { EmbeddedEventLog } from './embedded-event-log';

const dirs = new Map<object, string>();
const fresh = async () => {
  const dir = await mkdtemp(join(tmpdir(), 'shoal-log-'));
  const log = await EmbeddedEventLog.open({ dir, sync: false });
  dirs.set(log, dir);
  return log;
};

describeEventLogContract('embedded', {
  open: fresh,
  reopen: async (log) => {
    await log.close();
    const dir = dirs.get(log)!;
    const again = await EmbeddedEventLog.open({ dir, sync: false });
    dirs.set(again, dir);
    return again;
  },
});

describe('EmbeddedEventLog', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'shoal-log-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('cuts a torn last frame left by a crash and keeps every whole record', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await log.append([{ key: 'c1', value: 'one' }, { key: 'c1', value: 'two' }]);
    await log.close();
    await appendFile(join(dir, 'events.log'), '{"k":"c1","v":"thr');
    const again = await EmbeddedEventLog.open({ dir });
    expect(again.recovered).toMatch(/cut a torn frame of 18 bytes/);
    expect((await again.read(0)).map((r) => r.value)).toEqual(['one', 'two']);
    await again.append([{ key: 'c1', value: 'three' }]);
    await again.close();
    const lines = (await readFile(join(dir, 'events.log'), 'utf8')).trim().split('\n');
    expect(lines.map((line) => JSON.parse(line).v)).toEqual(['one', 'two', 'three']);
  });

  it('refuses a second process on the same directory, naming it', async () => {
    await writeFile(join(dir, 'LOCK'), `${process.ppid}\n`);
    await expect(EmbeddedEventLog.open({ dir })).rejects.toThrow(`is in use by process ${process.ppid}`);
  });

  it('takes over a lock left by a process that is gone', async () => {
    await writeFile(join(dir, 'LOCK'), '999999999\n');
    const log = await EmbeddedEventLog.open({ dir });
    expect(await log.highWaterMark()).toBe(0);
    await log.close();
  });

  it('refuses a second open in the same process', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    await expect(EmbeddedEventLog.open({ dir })).rejects.toThrow(/already open in this process/);
    await log.close();
  });

  it('appends 100,000 records and reads them back after a restart', async () => {
    const log = await EmbeddedEventLog.open({ dir });
    const batch = Array.from({ length: 1_000 }, (_, i) => ({ key: 'c1', value: `{"n":${i}}` }));
    for (let i = 0; i < 100; i++) await log.append(batch);
    expect(await log.highWaterMark()).toBe(100_000);
    expect((await log.read(99_999))[0]?.value).toBe('{"n":999}');
    await log.close();
    const again = await EmbeddedEventLog.open({ dir });
    expect(await again.highWaterMark()).toBe(100_000);
    await again.close();
  });
});
