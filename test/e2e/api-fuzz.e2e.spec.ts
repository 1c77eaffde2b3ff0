import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { ensureSchemathesis } from '../../libs/testing/src/processes/schemathesis';

/** The run's bounds: examples per operation, the whole run, one request. */
const MAX_EXAMPLES = 5;
const RUN_SECONDS = 75;
const REQUEST_TIMEOUT_SECONDS = 10;

interface Exchange {
  readonly request: { readonly method: string; readonly url: string };
  readonly response: { readonly status: number; readonly content?: { readonly text?: string } };
}

/** Runs the fuzzer to its end in `cwd`, killing it if it outlives its own time budget by a minute. */
const fuzz = (cli: string, args: readonly string[], cwd: string): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(cli, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`schemathesis ran past ${RUN_SECONDS + 60} s:\n${output}`));
    }, (RUN_SECONDS + 60) * 1000);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });

// Shoal's OpenAPI document, Docker's swarm routes and Shoal's own, fuzzed by schemathesis
// against the all-in-one process on the real broker. Every status it answers must be in the
// document, no answer may be a 500, no request may hang past its timeout, the process must
// still be up and ready, and the audit must find every replay of the log in agreement.
describe('the API under a fuzz of its OpenAPI document', () => {
  let deployment: ShoalProcesses;
  beforeEach(() => {
    deployment = ShoalProcesses.onKafka('fuzz', { SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  });
  afterEach(() => deployment?.close());

  it('answers every request with a documented status, no 500, no hang, and audits clean afterwards', async () => {
    const cli = ensureSchemathesis();
    const { dataDir, env } = deployment;
    const shoal = deployment.start();
    const [, port] = await shoal.waitFor(/http:\/\/127\.0\.0\.1:(\d+)/, 90_000);
    await shoal.waitFor(/Ctrl-C stops it/, 90_000);
    const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim();
    const har = join(dataDir, 'fuzz.har.json');

    const run = await fuzz(cli, [
      'run', `http://127.0.0.1:${port}/openapi.json`,
      '--header', `Authorization: Bearer ${token}`,
      // Every status must be one the document names (500 is named everywhere: it is judged below).
      '--checks', 'status_code_conformance',
      // Docker's event stream stays open until the client goes: not a request that ends.
      '--exclude-path', '/events',
      // The console's live view too: server-sent events, open until the client goes.
      '--exclude-path', '/shoal/v1/console/live',
      '--max-examples', String(MAX_EXAMPLES),
      '--max-time', String(RUN_SECONDS),
      '--request-timeout', String(REQUEST_TIMEOUT_SECONDS),
      '--seed', '22',
      '--report', 'har', '--report-har-path', har,
      // In the data dir, so what it keeps between runs (.schemathesis/) goes with it.
    ], dataDir);
    const exchanges = existsSync(har) ? (JSON.parse(readFileSync(har, 'utf8')) as { log: { entries: Exchange[] } }).log.entries : [];
    expect(exchanges.length).toBeGreaterThan(100);
    const internal = exchanges.filter((exchange) => exchange.response.status === 500).map((exchange) => `${exchange.request.method} ${exchange.request.url} → ${exchange.response.content?.text ?? ''}`);
    expect(internal).toEqual([]);
    if (run.code !== 0) throw new Error(`schemathesis found failures or errors (exit ${run.code}):\n${run.output}`);

    // Still up, ready, and the log it wrote audits clean.
    expect(shoal.running).toBe(true);
    const socket = join(dataDir, 'shoal.sock');
    expect((await dockerApi(socket, 'GET', '/readyz')).status).toBe(200);
    const live = (await dockerApi<{ hash: string; position: number }>(socket, 'GET', '/statez')).body;
    expect(await shoal.stop()).toBe(0);
    const verify = await runShoalCli(['audit', 'verify', '--json'], env, 120_000);
    expect(verify.stderr).toBe('');
    const report = JSON.parse(verify.stdout) as { agree: boolean; highWaterMark: number; checks: { name: string; agrees: boolean }[] };
    expect(verify.code).toBe(0);
    expect(report.agree).toBe(true);
    expect(report.checks.every((check) => check.agrees)).toBe(true);
    expect(report.highWaterMark).toBeGreaterThanOrEqual(live.position);
  }, 300_000);
});
