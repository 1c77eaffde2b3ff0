import 'reflect-metadata';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { EventLogModule } from './eventlog.module';
import { EVENT_LOG } from './port';
import type { EventLog } from './port';

describe('EventLogModule', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoal-module-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('provides EVENT_LOG to a Nest app and closes it when the app shuts down', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [EventLogModule.forRoot({ env: { SHOAL_DATA_DIR: dir } })] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.init();
    const log = app.get<EventLog>(EVENT_LOG);
    await log.append([{ key: 'c1', value: 'through nest' }]);
    expect(existsSync(join(dir, 'log', 'LOCK'))).toBe(true);
    await app.close();
    expect(existsSync(join(dir, 'log', 'LOCK'))).toBe(false);
    await expect(log.append([{ key: 'c1', value: 'late' }])).rejects.toThrow(/closed/);
  });

  it('still takes the environment as its first argument', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [EventLogModule.forRoot({ SHOAL_DATA_DIR: dir }, 'shoal-test')] }).compile();
    const log = moduleRef.get<EventLog>(EVENT_LOG);
    expect(log.description).toBe(`embedded ${join(dir, 'log')}`);
    await moduleRef.close();
  });
});
