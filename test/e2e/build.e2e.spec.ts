import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = join(__dirname, '..', '..');
const run = promisify(execFile);

// What a deployment runs: `npm run build`, then `node dist/apps/<app>/main.js` with no
// TypeScript tooling at run time.
describe('npm run build', () => {
  let dataDir: string;
  beforeAll(() => (dataDir = mkdtempSync(join(tmpdir(), 'shoal-build-'))));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('compiles every app to dist/apps/<app>/main.js, and the compiled CLI runs', async () => {
    const built = await run('npm', ['run', '--silent', 'build'], { cwd: ROOT });
    expect(built.stdout).toMatch(/dist\/apps\/cli\/main\.js/);
    expect(built.stdout).toMatch(/dist\/apps\/reaper\/main\.js/);
    const env = { ...process.env, SHOAL_DATA_DIR: dataDir, KAFKA_BROKERS: '', NODE_OPTIONS: '' };
    const replayed = await run(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'main.js'), 'audit', 'replay', '--json'], { cwd: dataDir, env });
    expect(JSON.parse(replayed.stdout)).toMatchObject({ offset: 0, hash: expect.stringMatching(/^[0-9a-f]{64}$/) });
    await expect(run(process.execPath, [join(ROOT, 'dist', 'apps', 'cli', 'main.js'), 'run', 'nothing'], { cwd: dataDir, env })).rejects.toMatchObject({
      stderr: expect.stringMatching(/Allowed choices are allocator, orchestrator, scheduler, dispatcher, reaper, api/),
    });
  });
});
