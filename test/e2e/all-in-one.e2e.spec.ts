import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShoalProcess, runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';

// `npm start` as a user runs it: the all-in-one process on the embedded log, stopped and
// started again, then audited by the CLI in yet another process.
describe('npm start (all in one, embedded log)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'shoal-e2e-'));
    env = { ...process.env, SHOAL_DATA_DIR: dataDir, KAFKA_BROKERS: '', SHOAL_API_PORT: '0' };
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('initializes a cluster once, survives a restart from its snapshot, and audits clean', async () => {
    const first = ShoalProcess.start(env);
    const [, firstCluster] = await first.waitFor(/cluster\s+(\S+)/);
    await first.waitFor(/Ctrl-C stops it/);
    expect(first.output).toMatch(/embedded log in .*\(2 records\)/);
    expect(first.output).toMatch(/running\s+reaper/);
    expect(await first.stop()).toBe(0);
    // ClusterInitialized, then the reaper's OwnershipTaken: the snapshot on shutdown has both.
    expect(readdirSync(join(dataDir, 'snapshots', 'shoal'))).toEqual(['0000000000000002.json']);
    expect(existsSync(join(dataDir, 'log', 'LOCK'))).toBe(false);

    const second = ShoalProcess.start(env);
    const [, secondCluster] = await second.waitFor(/cluster\s+(\S+)/);
    await second.waitFor(/Ctrl-C stops it/);
    expect(secondCluster).toBe(firstCluster);
    expect(second.output).toMatch(/\(3 records\)/);
    expect(await second.stop()).toBe(0);

    const verify = await runShoalCli(['audit', 'verify'], env);
    expect(verify.stderr).toBe('');
    expect(verify.code).toBe(0);
    expect(verify.stdout).toMatch(/ok\s+shoal: snapshot at offset 3 \+ tail/);
    expect(verify.stdout).toMatch(/verdict\s+AGREE/);

    const replay = await runShoalCli(['audit', 'replay', '--json'], env);
    const state = JSON.parse(replay.stdout) as { offset: number; state: { cluster: { id: string }; terms: [string, number][] } };
    expect(state.offset).toBe(3);
    expect(state.state.cluster.id).toBe(firstCluster);
    // The second process's reaper took over from the first under a newer term.
    expect(state.state.terms).toEqual([['reaper', 2]]);
  });

  it('refuses a second all-in-one process on the same data directory, saying why', async () => {
    const first = ShoalProcess.start(env);
    await first.waitFor(/Ctrl-C stops it/);
    const second = ShoalProcess.start(env);
    await expect(second.waitFor(/Ctrl-C stops it/, 30_000)).rejects.toThrow(/is in use by process \d+/);
    expect(await first.stop()).toBe(0);
  });

  it('the CLI says what to fix when --to is wrong', async () => {
    const bad = await runShoalCli(['audit', 'replay', '--to', 'ten'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/expected a non-negative whole number, e\.g\. --to 1200/);
    const past = await runShoalCli(['audit', 'replay', '--to', '50'], env);
    expect(past.code).toBe(2);
    expect(past.stderr).toMatch(/--to 50 is past the end of the log \(0 records\); use --to 0 or less/);
  });
});
