import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import type { Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { portFree, portToListenOn } from './listen-ports';
import { ShoalRunner } from './shoal.runner';
import type { ShoalConfig } from './shoal.config';
import { configFromEnv } from './shoal.config';

/** A port something else listens on, as a Docker swarm manager holds 2377. */
const occupy = (): Promise<{ server: Server; port: number }> =>
  new Promise((resolve) => {
    const server = createServer();
    server.listen({ port: 0, host: '127.0.0.1' }, () => resolve({ server, port: (server.address() as { port: number }).port }));
  });

describe('the all-in-one when its port is taken', () => {
  let taken: { server: Server; port: number };
  let dir: string;
  beforeEach(async () => {
    taken = await occupy();
    dir = mkdtempSync(join(tmpdir(), 'shoal-ports-'));
  });
  afterEach(async () => {
    await new Promise((resolve) => taken.server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('knows a taken port from a free one', async () => {
    expect(await portFree(taken.port)).toBe(false);
    expect(await portFree(0)).toBe(true);
  });

  it('takes any free port instead of a default that is taken, and says which setting chooses', async () => {
    const said: string[] = [];
    expect(await portToListenOn({ name: 'SHOAL_DISPATCHER_PORT', port: taken.port, chosen: false }, (line) => said.push(line))).toBe(0);
    expect(said).toEqual([`127.0.0.1:${taken.port} is already in use: listening on a free port instead (SHOAL_DISPATCHER_PORT to choose one)`]);
  });

  it('refuses a port the user chose that is taken, naming the setting', async () => {
    await expect(portToListenOn({ name: 'SHOAL_DISPATCHER_PORT', port: taken.port, chosen: true }, () => undefined)).rejects.toThrow(
      `SHOAL_DISPATCHER_PORT=${taken.port}: 127.0.0.1:${taken.port} is already in use; set SHOAL_DISPATCHER_PORT to a free port, or to 0 for any free one`,
    );
  });

  it('knows which ports the environment set', () => {
    expect(configFromEnv({ SHOAL_DISPATCHER_PORT: '2378' }).chosenPorts).toEqual({ api: false, dispatcher: true });
    expect(configFromEnv({}).chosenPorts).toEqual({ api: false, dispatcher: false });
  });

  const config = (dispatcherChosen: boolean): ShoalConfig => ({
    dataDir: dir,
    apiPort: 0,
    dispatcherPort: taken.port,
    chosenPorts: { api: true, dispatcher: dispatcherChosen },
    simNodes: 0,
    brokers: [],
    snapshotEveryMs: 0,
  });

  it('stops before writing anything when the chosen dispatcher port is taken', async () => {
    const log = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
    try {
      await expect(new ShoalRunner(log, config(true)).start()).rejects.toThrow(/SHOAL_DISPATCHER_PORT=\d+: .* is already in use/);
      expect(await log.highWaterMark()).toBe(0);
    } finally {
      await log.close();
    }
  });

  it('starts, with agents joining on another port, when the default dispatcher port is taken', async () => {
    const log = await EmbeddedEventLog.open({ dir: join(dir, 'log'), sync: false });
    const runner = new ShoalRunner(log, config(false));
    try {
      const { dispatcherPort, view } = await runner.start();
      expect(dispatcherPort).not.toBe(taken.port);
      expect(dispatcherPort).toBeGreaterThan(0);
      expect(view.state.cluster).toBeDefined();
    } finally {
      await runner.beforeApplicationShutdown();
      await log.close();
    }
  });
});
