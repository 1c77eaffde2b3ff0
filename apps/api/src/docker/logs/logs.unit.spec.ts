/**
 * Docker's logs endpoints end to end in this process: the API on an embedded log, a fake
 * active dispatcher (a Logs server on 127.0.0.1) named by an OwnershipTaken on the log,
 * and the body read back frame by frame — and by the real docker CLI.
 */
import { request } from 'node:http';
import { TOKENS, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../../testing/api-harness';
import type { ApiHarness } from '../../testing/api-harness';
import { freedAddress, logLine, readFrames, redirectingTo, sending, startFakeLogsServer } from '../../testing/fake-logs-server';
import type { FakeLogsServer, LogsCallHandler } from '../../testing/fake-logs-server';


interface Answer {
  readonly status: number;
  readonly contentType?: string;
  readonly body: Buffer;
}

const get = (api: ApiHarness, path: string): Promise<Answer> =>
  new Promise((resolve, reject) => {
    const req = request({ method: 'GET', path, socketPath: api.socketPath }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ...(res.headers['content-type'] ? { contentType: res.headers['content-type'] } : {}), body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });


describe("Docker's service and task logs, from the active dispatcher", () => {
  let api: ApiHarness;
  let term = 0;
  let handler: LogsCallHandler = sending();
  const servers: FakeLogsServer[] = [];
  let active: FakeLogsServer;

  /** Puts the dispatcher at `address` in charge, as its takeover on the log does. */
  const takeOver = async (address: string): Promise<void> => {
    term += 1;
    await api.append(api.events.event('OwnershipTaken', { component: 'dispatcher', term }, { by: 'dispatcher', instance: `d-${term}@${address}`, term }));
  };

  beforeAll(async () => {
    api = await startApi();
    const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
    await api.append(
      api.events.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      api.events.event('ServiceCreated', { id: 's1', spec: web }),
      api.events.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
    );
    active = await startFakeLogsServer((call) => handler(call));
    servers.push(active);
    await takeOver(active.address);
  });
  afterAll(async () => {
    await api.close();
    await Promise.all(servers.map((server) => server.close()));
  });

  it("answers a service's logs as Docker's multiplexed stream, each line with its time and its task's context", async () => {
    handler = sending({ messages: [logLine('ready', { at: '2026-01-01T00:00:01.5Z' }), logLine('oops', { stream: 'STDERR', at: '2026-01-01T00:00:02Z' })] });
    const answer = await get(api, '/v1.47/services/web/logs?stdout=1&stderr=1&details=1&timestamps=1&tail=all');
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe('application/vnd.docker.multiplexed-stream');
    const context = 'com.docker.swarm.node.id=n1,com.docker.swarm.service.id=s1,com.docker.swarm.task.id=t1';
    expect(readFrames(answer.body)).toEqual([
      { stream: 1, payload: `2026-01-01T00:00:01.500000000Z ${context} ready\n` },
      { stream: 2, payload: `2026-01-01T00:00:02.000000000Z ${context} oops\n` },
    ]);
    expect(active.requests.at(-1)).toEqual({
      selector: { serviceIds: ['s1'], taskIds: [] },
      options: { stdout: true, stderr: true, follow: false, tail: -1, sinceMs: 0 },
      managerToken: TOKENS.manager,
    });
  });

  it("asks for a task's output by its id, with since and tail", async () => {
    handler = sending({ messages: [logLine('only the line')] });
    const answer = await get(api, '/tasks/t1/logs?stdout=1&since=1700000000.25&tail=5');
    expect(readFrames(answer.body)).toEqual([{ stream: 1, payload: 'only the line\n' }]);
    expect(active.requests.at(-1)).toMatchObject({ selector: { serviceIds: [], taskIds: ['t1'] }, options: { stdout: true, stderr: false, tail: 5, sinceMs: 1_700_000_000_250 } });
  });

  it("ends the body with the dispatcher's warnings as system-error frames", async () => {
    handler = sending({ messages: [logLine('partial')], warnings: ['node n2 is not connected'] });
    const answer = await get(api, '/services/s1/logs?stdout=1');
    expect(readFrames(answer.body)).toEqual([
      { stream: 1, payload: 'partial\n' },
      { stream: 3, payload: 'Error grabbing logs: node n2 is not connected\n' },
    ]);
  });

  it('names the raw stream to clients older than API 1.42, as Docker does', async () => {
    handler = sending({ messages: [logLine('old client')] });
    const answer = await get(api, '/v1.41/services/web/logs?stdout=1');
    expect(answer.contentType).toBe('application/vnd.docker.raw-stream');
    expect(readFrames(answer.body)).toEqual([{ stream: 1, payload: 'old client\n' }]);
  });

  it('answers 404 for a service or task it does not know, and 400 for a bad query, without asking the dispatcher', async () => {
    const asked = active.requests.length;
    const unknown = await get(api, '/services/nope/logs?stdout=1');
    expect(unknown.status).toBe(404);
    expect(JSON.parse(unknown.body.toString())).toEqual({ message: 'service nope not found' });
    expect((await get(api, '/tasks/nope/logs?stdout=1')).status).toBe(404);
    const noStream = await get(api, '/services/web/logs');
    expect(noStream.status).toBe(400);
    expect(JSON.parse(noStream.body.toString())).toEqual({ message: 'Bad parameters: you must choose at least one stream' });
    const badTail = await get(api, '/services/web/logs?stdout=1&tail=ten');
    expect(badTail.status).toBe(400);
    expect(JSON.parse(badTail.body.toString()).message).toMatch(/"tail"/);
    expect(active.requests.length).toBe(asked);
  });

  it('stops the dispatcher\'s stream when the client goes away while following', async () => {
    handler = (call) => call.write({ messages: [logLine('first of many')], warnings: [] });
    await new Promise<void>((resolve, reject) => {
      const req = request({ method: 'GET', path: '/services/web/logs?stdout=1&follow=1', socketPath: api.socketPath }, (res) => {
        res.once('data', () => {
          expect(active.open).toBe(1);
          req.destroy();
          resolve();
        });
      });
      req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
      req.end();
    });
    for (let i = 0; i < 200 && active.open > 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(active.open).toBe(0);
  }, 10_000);

  it('is read by the docker CLI as `docker service logs` prints it', async () => {
    handler = sending({ messages: [logLine('hello from web', { at: '2026-01-01T00:00:03Z' }), logLine('to stderr', { stream: 'STDERR' })] });
    const result = await api.docker(['service', 'logs', '--timestamps', 'web']);
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toBe('2026-01-01T00:00:03.000000000Z web.1.t1@node-1    | hello from web\n');
    expect(result.stderr).toContain('web.1.t1@node-1    | to stderr\n');
    handler = sending({ messages: [logLine('one task')] });
    const task = await api.docker(['service', 'logs', 't1']);
    expect(task).toMatchObject({ code: 0, stdout: 'web.1.t1@node-1    | one task\n' });
    expect(active.requests.at(-1)?.selector).toEqual({ serviceIds: [], taskIds: ['t1'] });
  });

  it('follows a standby to the active dispatcher', async () => {
    handler = sending({ messages: [logLine('via the standby')] });
    const standby = await startFakeLogsServer(redirectingTo(active.address));
    servers.push(standby);
    await takeOver(standby.address);
    const answer = await get(api, '/services/web/logs?stdout=1');
    expect(readFrames(answer.body)).toEqual([{ stream: 1, payload: 'via the standby\n' }]);
    expect(standby.requests).toHaveLength(1);
  });

  it('answers 503 when no dispatcher answers where the log says the active one is', async () => {
    const nowhere = await freedAddress();
    await takeOver(nowhere);
    const answer = await get(api, '/services/web/logs?stdout=1');
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body.toString()).message).toMatch(new RegExp(`no active dispatcher answers at ${nowhere}.*check that one runs`));
  });
});
