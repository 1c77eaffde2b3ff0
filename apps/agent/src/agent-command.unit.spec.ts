import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { eventually } from '@shoal/testing';
import { agentCommand, fleetLabels } from './agent-command';
import { parseByteSize } from './byte-size';
import { assignment, complete, update } from './testing/assignments';
import { FakeDispatcher } from './testing/fake-dispatcher';

const ROOT = join(__dirname, '..', '..', '..');

/** How long the agent process gets to do each thing, and how often to look. */
const WITHIN = { timeoutMs: 45_000, everyMs: 20 };

/** Runs `shoal agent …` as its own process; resolves with its exit code and output. */
const shoalAgent = (args: string[], until?: (child: ReturnType<typeof spawn>, output: () => string) => Promise<void>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', join(ROOT, 'bin', 'register.js'), join(ROOT, 'apps', 'cli', 'src', 'main.ts'), 'agent', ...args], { cwd: ROOT, env: { ...process.env, SHOAL_JOIN_TOKEN: '', SHOAL_DISPATCHER: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    until?.(child, () => stdout).catch(reject);
  });

describe('shoal agent', () => {
  let dispatcher: FakeDispatcher;
  beforeEach(async () => {
    dispatcher = await FakeDispatcher.start();
  });
  afterEach(() => dispatcher.stop());

  it('reads labels and label cycles, and sizes', () => {
    expect(fleetLabels(['tier=web', 'ssd=true'], ['zone=a,b,c'])).toEqual({ tier: 'web', ssd: 'true', zone: ['a', 'b', 'c'] });
    expect(() => fleetLabels(['nokey'], [])).toThrow(/a label is key=value/);
    expect(() => fleetLabels([], ['zone=a,,b'])).toThrow(/--label-cycle is key=v1,v2/);
    expect(parseByteSize('8GiB')).toBe(8 * 2 ** 30);
    expect(parseByteSize('512mib')).toBe(512 * 2 ** 20);
    expect(parseByteSize('2G')).toBe(2e9);
    expect(() => parseByteSize('lots')).toThrow(/expected a size like 8GiB/);
  });

  it('says what is missing or misplaced', async () => {
    const run = (args: string[]) => agentCommand().exitOverride().configureOutput({ writeErr: () => undefined }).parseAsync(args, { from: 'user' });
    const saved = { token: process.env.SHOAL_JOIN_TOKEN, dispatcher: process.env.SHOAL_DISPATCHER };
    delete process.env.SHOAL_JOIN_TOKEN;
    delete process.env.SHOAL_DISPATCHER;
    try {
      await expect(run(['--dispatcher', dispatcher.address])).rejects.toThrow('--join-token is required (or set SHOAL_JOIN_TOKEN)');
      await expect(run(['--join-token', 'x'])).rejects.toThrow('--dispatcher is required (or set SHOAL_DISPATCHER)');
      await expect(run(['--join-token', 'x', '--dispatcher', 'nowhere'])).rejects.toThrow(/expected host:port/);
      await expect(run(['--join-token', 'x', '--dispatcher', `${dispatcher.address},nowhere`])).rejects.toThrow(/expected host:port, or several separated by commas.*got "nowhere"/);
      // An IPv6 host goes in brackets, as a dispatcher on an IPv6 host lists itself (the next complaint is --cpus: the address passed).
      await expect(run(['--join-token', 'x', '--dispatcher', '::1:2377'])).rejects.toThrow(/an IPv6 host in brackets: \[::1\]:2377\); got "::1:2377"/);
      await expect(run(['--join-token', 'x', '--dispatcher', '[::1]:2377', '--cpus', '2'])).rejects.toThrow('--cpus is for simulated nodes: add --simulate N');
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--cpus', '2'])).rejects.toThrow('--cpus is for simulated nodes: add --simulate N');
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--simulate', 'many'])).rejects.toThrow(/expected a number of nodes/);
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--engine', 'unix:///run/docker.sock'])).rejects.toThrow('--engine is for the docker executor: add --executor docker');
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--executor', 'docker', '--engine', 'docker.example'])).rejects.toThrow(/an engine address is unix:\/\/\/path\/to\/docker.sock or tcp:\/\/host:port; got "docker.example"/);
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--executor', 'podman'])).rejects.toThrow(/Allowed choices are exec, docker/);
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--simulate', '2', '--executor', 'docker'])).rejects.toThrow(/simulated nodes run no executor of this host/);
      await expect(run(['--join-token', 'x', '--dispatcher', dispatcher.address, '--simulate', '2', '--tls'])).rejects.toThrow(/--tls is for one node on this host: a simulated fleet joins over plain gRPC/);
      await expect(run(['--join-token', 'SWMTKN-1-short-x', '--dispatcher', dispatcher.address, '--tls'])).rejects.toThrow(/not a SWMTKN-1-<root CA digest>-<secret> token/);
    } finally {
      if (saved.token !== undefined) process.env.SHOAL_JOIN_TOKEN = saved.token;
      if (saved.dispatcher !== undefined) process.env.SHOAL_DISPATCHER = saved.dispatcher;
    }
  });

  it('exits 1 with a clear message when the join token is refused', async () => {
    const result = await shoalAgent(['--join-token', 'SWMTKN-1-wrong', '--dispatcher', dispatcher.address]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`the dispatcher at ${dispatcher.address} refused the join token: invalid join token`);
  });

  it('--simulate N joins N nodes with the resources and labels asked for, and leaves on SIGTERM', async () => {
    const result = await shoalAgent(
      ['--simulate', '3', '--join-token', 'SWMTKN-1-good', '--dispatcher', dispatcher.address, '--cpus', '2', '--memory', '1GiB', '--label', 'tier=web', '--label-cycle', 'zone=a,b'],
      async (child) => {
        await eventually('three nodes', () => dispatcher.connectedNodes.length === 3, WITHIN);
        child.kill('SIGTERM');
      },
    );
    expect(result.code).toBe(0);
    const described = dispatcher.sessionRequests.map((request) => request.description).sort((a, b) => a.hostname.localeCompare(b.hostname));
    expect(described.map((d) => [d.hostname, d.nanoCpus, d.memoryBytes, d.engineLabels])).toEqual([
      ['sim-node-1', 2e9, 2 ** 30, { tier: 'web', zone: 'a' }],
      ['sim-node-2', 2e9, 2 ** 30, { tier: 'web', zone: 'b' }],
      ['sim-node-3', 2e9, 2 ** 30, { tier: 'web', zone: 'a' }],
    ]);
  });

  it('on this host, runs its tasks as real processes and stops them on SIGTERM', async () => {
    dispatcher.initialAssignments.set('node-1', complete(update({ ...assignment('sleeper'), specJson: JSON.stringify({ container: { image: 'x', command: ['sleep', '60'] } }) })));
    const result = await shoalAgent(['--join-token', 'SWMTKN-1-good', '--dispatcher', dispatcher.address, '--hostname', 'edge-1', '--label', 'zone=z'], async (child, output) => {
      await eventually('the task running', () => dispatcher.statuses.some((status) => status.taskId === 'sleeper' && status.state === TaskState.RUNNING), WITHIN);
      expect(output()).toContain('node node-1 (edge-1');
      child.kill('SIGTERM');
    });
    expect(result.code).toBe(0);
    expect(dispatcher.sessionRequests[0]?.description).toMatchObject({ hostname: 'edge-1', engineLabels: { zone: 'z' } });
    expect(dispatcher.statuses.filter((status) => status.taskId === 'sleeper').map((status) => status.state).at(-1)).toBe(TaskState.SHUTDOWN);
  });

  it('with --state-dir, joins as the same node after a restart', async () => {
    const stateDir = join(mkdtempSync(join(tmpdir(), 'shoal-agent-')), 'state');
    const args = ['--join-token', 'SWMTKN-1-good', '--dispatcher', dispatcher.address, '--state-dir', stateDir];
    const runOnce = (sessions: number) =>
      shoalAgent(args, async (child) => {
        await eventually(`session ${sessions}`, () => dispatcher.sessionRequests.length === sessions && dispatcher.connectedNodes.length === 1, WITHIN);
        await eventually('the node id kept', () => existsSync(join(stateDir, 'node-id')) && readFileSync(join(stateDir, 'node-id'), 'utf8').trim() !== '', WITHIN);
        child.kill('SIGTERM');
      });
    expect((await runOnce(1)).code).toBe(0);
    expect((await runOnce(2)).code).toBe(0);
    expect(dispatcher.sessionRequests.map((request) => request.nodeId)).toEqual(['', 'node-1']);
    expect(readFileSync(join(stateDir, 'node-id'), 'utf8').trim()).toBe('node-1');
  });

  it('with --state-dir, still has what a task wrote after the agent is killed and restarted, while the node has the task; the files of tasks it no longer has go', async () => {
    const stateDir = join(mkdtempSync(join(tmpdir(), 'shoal-agent-')), 'state');
    const args = ['--join-token', 'SWMTKN-1-good', '--dispatcher', dispatcher.address, '--state-dir', stateDir];
    const talker = (observedState: TaskState) => ({
      ...assignment('talker', [], { observedState }),
      specJson: JSON.stringify({ container: { image: 'x', command: ['sh', '-c', 'echo before the restart; echo on stderr >&2; exec sleep 60'] } }),
    });
    const logFile = join(stateDir, 'logs', 'talker');
    dispatcher.initialAssignments.set('node-1', complete(update(talker(TaskState.ASSIGNED))));
    const first = await shoalAgent(args, async (child) => {
      await eventually('the node id kept', () => existsSync(join(stateDir, 'node-id')), WITHIN);
      await eventually("the task's output in its file", () => existsSync(logFile) && readFileSync(logFile, 'utf8').includes('on stderr'), WITHIN);
      child.kill('SIGKILL');
    });
    expect(first.code).toBeNull();
    // A file of a task the node no longer has; the task the killed agent ran is still the node's, as running.
    writeFileSync(join(stateDir, 'logs', 'gone'), '{"at":1,"stream":"stdout","data":"old\\n"}\n');
    dispatcher.initialAssignments.set('node-1', complete(update(talker(TaskState.RUNNING))));
    const restartedAt = Date.now();
    const second = await shoalAgent(args, async (child) => {
      await eventually('the task failed', () => dispatcher.statuses.some((status) => status.taskId === 'talker' && status.state === TaskState.FAILED), WITHIN);
      dispatcher.sendLogSubscriptions('node-1', {
        id: 'after-restart',
        selector: { serviceIds: [], taskIds: ['talker'] },
        options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 },
        close: false,
      });
      await eventually('the subscription answered', () => dispatcher.publications.get('after-restart')?.ended, WITHIN);
      child.kill('SIGTERM');
    });
    expect(second.code).toBe(0);
    const lines = dispatcher.publishedLines('after-restart');
    expect(lines.map((line) => `${line.stream} ${line.data.toString()}`)).toEqual(['STDOUT before the restart\n', 'STDERR on stderr\n']);
    for (const line of lines) expect(Date.parse(line.at)).toBeLessThan(restartedAt);
    expect(existsSync(join(stateDir, 'logs', 'gone'))).toBe(false);
    expect(existsSync(logFile)).toBe(true);
  });

  it('with --state-dir, keeps the dispatchers its session listed, and after a restart finds one there when the one it was given is gone', async () => {
    const standby = await FakeDispatcher.start();
    try {
      const stateDir = join(mkdtempSync(join(tmpdir(), 'shoal-agent-')), 'state');
      dispatcher.dispatchers = [dispatcher.address, standby.address];
      const args = ['--join-token', 'SWMTKN-1-good', '--dispatcher', dispatcher.address, '--state-dir', stateDir];
      const kept = () => (existsSync(join(stateDir, 'dispatchers')) ? readFileSync(join(stateDir, 'dispatchers'), 'utf8') : '');
      const first = await shoalAgent(args, async (child) => {
        await eventually('the dispatchers kept', () => kept() === `${dispatcher.address}\n${standby.address}\n`, WITHIN);
        child.kill('SIGTERM');
      });
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`dispatchers known: ${dispatcher.address}, ${standby.address}`);
      // The dispatcher it was given goes away for good; the restarted agent is given only that one.
      await dispatcher.stop();
      const second = await shoalAgent(args, async (child) => {
        await eventually('the node on the dispatcher it kept', () => standby.connectedNodes.length === 1, WITHIN);
        child.kill('SIGTERM');
      });
      expect(second.code).toBe(0);
      expect(standby.sessionRequests.map((request) => request.nodeId)).toEqual(['node-1']);
    } finally {
      await standby.stop();
    }
  });
});
