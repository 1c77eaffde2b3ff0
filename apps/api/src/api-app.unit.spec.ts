/**
 * The API over HTTP, in this process on an embedded log: access (socket, tokens, roles),
 * Docker's prefix and ping, validation (nothing reaches the log), read-your-writes and
 * optimistic concurrency, swarm init, the OpenAPI document.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { createApiApp } from './create-api-app';
import { Intents } from './intents/intents';
import { startApi } from './testing/api-harness';
import type { ApiHarness } from './testing/api-harness';

const AUDITOR = 'auditor-token-0123456789abcdef';

const service = (overrides: Record<string, unknown> = {}) => ({
  Name: 'web',
  TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
  Mode: { Replicated: { Replicas: 2 } },
  ...overrides,
});

describe('the API over HTTP', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ tokens: [{ token: AUDITOR, role: 'auditor', name: 'audit' }] });
  });
  afterAll(() => api.close());

  describe('access', () => {
    it('keeps the socket and the admin token to their owner (0600)', () => {
      expect(statSync(api.socketPath).mode & 0o777).toBe(0o600);
      expect(statSync(join(api.dataDir, 'admin.token')).mode & 0o777).toBe(0o600);
    });

    it('will not take over a socket another API serves', async () => {
      await expect(createApiApp({ log: api.log, dataDir: api.dataDir, port: 0, cluster: api.cluster })).rejects.toThrow(/another process is serving the API/);
      expect((await api.request('GET', '/_ping', { socket: true })).status).toBe(200);
    });

    it('needs no token on the socket', async () => {
      expect((await api.request('GET', '/swarm', { socket: true })).status).toBe(200);
    });

    it('answers 401 over TCP without a token or with a wrong one, in Docker\'s error shape', async () => {
      expect(await api.request('GET', '/swarm')).toMatchObject({ status: 401, body: { message: expect.stringMatching(/Bearer/) } });
      expect(await api.request('GET', '/swarm', { token: 'not-a-token-0123456789' })).toMatchObject({ status: 401, body: { message: 'invalid token' } });
      expect(await api.request('GET', '/no/such/thing')).toMatchObject({ status: 401 });
    });

    it('lets the admin token do everything over TCP', async () => {
      expect((await api.request('GET', '/swarm', { token: api.adminToken })).status).toBe(200);
    });

    it('lets an auditor read, and answers 403 to its writes, writing nothing', async () => {
      expect((await api.request('GET', '/services', { token: AUDITOR })).status).toBe(200);
      const before = await api.log.highWaterMark();
      const refused = await api.request('POST', '/services/create', { token: AUDITOR, body: service({ Name: 'audited' }) });
      expect(refused).toMatchObject({ status: 403, body: { message: expect.stringMatching(/role auditor/) } });
      expect(await api.log.highWaterMark()).toBe(before);
    });
  });

  describe("Docker's protocol", () => {
    it('answers /_ping with the API version and swarm headers, GET and HEAD, with any /v1.NN prefix or none', async () => {
      for (const path of ['/_ping', '/v1.47/_ping', '/v1.50/_ping']) {
        const ping = await api.request('GET', path, { socket: true });
        expect(ping).toMatchObject({ status: 200, body: 'OK' });
        expect(ping.headers['api-version']).toBe('1.50');
        expect(ping.headers.swarm).toBe('active/manager');
      }
      const head = await api.request('HEAD', '/v1.44/_ping', { socket: true });
      expect(head.status).toBe(200);
      expect(head.headers['api-version']).toBe('1.50');
    });

    it('refuses a client version newer than its own', async () => {
      expect(await api.request('GET', '/v1.99/info', { socket: true })).toMatchObject({ status: 400, body: { message: expect.stringMatching(/too new/) } });
    });

    it('answers unknown paths with 404 in Docker\'s shape', async () => {
      expect(await api.request('GET', '/v1.47/containers/json', { socket: true })).toMatchObject({ status: 404, body: { message: expect.any(String) } });
    });

    it('says image digests cannot be resolved', async () => {
      expect(await api.request('GET', '/v1.50/distribution/library/nginx:1.27/json', { socket: true })).toMatchObject({
        status: 501,
        body: { message: expect.stringMatching(/library\/nginx:1\.27/) },
      });
    });

    it('answers an endpoint it does not serve (docker ps, images, volumes) with what it is, in a 404', async () => {
      const ps = await api.request('GET', '/v1.50/containers/json', { socket: true });
      expect(ps).toMatchObject({ status: 404, body: { message: expect.stringMatching(/^GET \/v1\.50\/containers\/json is not served by Shoal: it is a swarm manager only/) } });
      expect(await api.request('GET', '/services/nope', { socket: true })).toMatchObject({ status: 404, body: { message: 'service nope not found' } });
    });

    it('serves its OpenAPI document', async () => {
      const doc = await api.request('GET', '/openapi.json', { socket: true });
      expect(doc.status).toBe(200);
      expect(Object.keys((doc.body as { paths: object }).paths)).toEqual(expect.arrayContaining(['/services/create', '/nodes/{id}/update', '/swarm/update', '/tasks']));
    });
  });

  it("reads Docker's bodies as Go does: keys in any case, null as unset, unknown keys ignored (a service, a swarm update)", async () => {
    const created = await api.request('POST', '/services/create', {
      socket: true,
      body: { name: 'folded', labels: { Tier: 'a' }, tasktemplate: { containerSpec: { IMAGE: 'nginx:1.27', env: null }, Extra: 1 }, mode: { replicated: { replicas: 2 } }, updateConfig: null },
    });
    expect(created.status).toBe(201);
    const inspected = (await api.request('GET', '/services/folded', { socket: true })).body as { Spec: Record<string, unknown> };
    expect(inspected.Spec).toMatchObject({ Name: 'folded', Labels: { Tier: 'a' }, TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } }, Mode: { Replicated: { Replicas: 2 } } });
    const swarm = (await api.request('GET', '/swarm', { socket: true })).body as { Version: { Index: number }; Spec: Record<string, unknown> };
    const updated = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, orchestration: { taskHistoryRetentionLimit: 7 }, Raft: { KeepOldSnapshots: null } } });
    expect(updated.status).toBe(200);
    expect(api.view.state.cluster?.spec.orchestration.taskHistoryRetentionLimit).toBe(7);
  });

  describe('validation: 400 with the field and the reason, and nothing on the log', () => {
    it.each<[string, { body?: unknown; rawBody?: string }, RegExp]>([
      ['malformed JSON', { rawBody: '{"Name": "web",' }, /malformed JSON/],
      // A body of the wrong types: Docker's words, as Go's decoder gives them.
      ['a wrong type', { body: service({ Name: 42 }) }, /^json: cannot unmarshal number into Go struct field ServiceSpec\.Name of type string$/],
      ['an image of the wrong type', { body: service({ TaskTemplate: { ContainerSpec: { Image: ['x'] } } }) }, /^json: cannot unmarshal array into Go struct field ContainerSpec\.TaskTemplate\.ContainerSpec\.Image of type string$/],
      ['an unknown mode', { body: service({ Mode: { Daemon: {} } }) }, /^invalid Mode: unknown mode "Daemon" \(Replicated, Global, ReplicatedJob or GlobalJob\)$/],
      ['negative replicas', { body: service({ Mode: { Replicated: { Replicas: -2 } } }) }, /^json: cannot unmarshal number -2 into Go struct field ReplicatedService\.Mode\.Replicated\.Replicas of type uint64$/],
      ['bad constraint syntax', { body: service({ TaskTemplate: { ContainerSpec: { Image: 'x' }, Placement: { Constraints: ['node.labels.zone=east'] } } }) }, /Constraints\[0\]/],
      ['an unknown restart condition', { body: service({ TaskTemplate: { ContainerSpec: { Image: 'x' }, RestartPolicy: { Condition: 'always' } } }) }, /RestartPolicy\.Condition/],
      ['a port out of range', { body: service({ EndpointSpec: { Ports: [{ TargetPort: 0 }] } }) }, /EndpointSpec\.Ports\[0\]\.TargetPort: 0 is not a port/],
      ['a label that is not a string', { body: service({ Labels: { tier: 3 } }) }, /^json: cannot unmarshal number into Go struct field ServiceSpec\.Labels of type string$/],
      ['an oversized body', { body: service({ Labels: { big: 'x'.repeat(3 * 1024 * 1024) } }) }, /larger than/],
      ['no body', {}, /^got EOF while reading request body$/],
    ])('%s', async (_case, input, message) => {
      const before = await api.log.highWaterMark();
      const answer = await api.request('POST', '/v1.47/services/create', { socket: true, ...input });
      expect(answer).toMatchObject({ status: 400, body: { message: expect.stringMatching(message) } });
      expect(await api.log.highWaterMark()).toBe(before);
    });

    it('never writes a record the log would read as poison (the event shape is checked before appending)', async () => {
      const swarm = (await api.request('GET', '/swarm', { socket: true })).body as { Version: { Index: number }; Spec: Record<string, unknown> };
      const before = await api.log.highWaterMark();
      const answer = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, Labels: { team: 7 } } });
      // The decode refuses it first, in Go's words, as Docker's engine does.
      expect(answer).toMatchObject({ status: 400, body: { message: 'json: cannot unmarshal number into Go struct field Spec.Labels of type string' } });
      // Past the decode, an intent of the wrong shape is still refused before it is appended.
      const intents = api.app.get(Intents);
      const cluster = api.view.state.cluster!;
      const misshapen = { ...cluster.spec, labels: { team: 7 } } as unknown as typeof cluster.spec;
      await expect(intents.submit('ClusterSpecUpdated', { spec: misshapen }, { clusterVersion: cluster.version })).rejects.toMatchObject({
        status: 400,
        message: expect.stringMatching(/labels\.team/),
      });
      expect(await api.log.highWaterMark()).toBe(before);
    });

    it('refuses an unknown filter', async () => {
      expect(await api.request('GET', `/services?filters=${encodeURIComponent('{"colour":{"red":true}}')}`, { socket: true })).toMatchObject({
        status: 400,
        body: { message: "Invalid filter 'colour'" },
      });
    });
  });

  describe('intents', () => {
    it('answers a create only once the log has applied it (read-your-writes)', async () => {
      const created = await api.request('POST', '/services/create', { socket: true, body: service({ Name: 'ryw' }) });
      expect(created).toMatchObject({ status: 201, body: { ID: expect.stringMatching(/^[0-9a-z]{25}$/) } });
      const id = (created.body as { ID: string }).ID;
      expect(await api.request('GET', `/services/${id}`, { socket: true })).toMatchObject({ status: 200, body: { ID: id, Spec: { Name: 'ryw' }, Version: { Index: 1 } } });
      expect(await api.request('GET', '/services/ryw', { socket: true })).toMatchObject({ status: 200, body: { ID: id } });
    });

    it('refuses a second service of the same name with 409', async () => {
      await api.request('POST', '/services/create', { socket: true, body: service({ Name: 'twice' }) });
      expect(await api.request('POST', '/services/create', { socket: true, body: service({ Name: 'twice' }) })).toMatchObject({
        status: 409,
        body: { message: expect.stringMatching(/name conflicts with an existing object/) },
      });
    });

    it('refuses, with 400 and nothing on the log, an ingress port another service publishes, at create and at update', async () => {
      const publishing = (name: string, port: number) => service({ Name: name, EndpointSpec: { Ports: [{ Protocol: 'tcp', TargetPort: 80, PublishedPort: port }] } });
      expect((await api.request('POST', '/services/create', { socket: true, body: publishing('holder', 9999) })).status).toBe(201);
      const before = await api.log.highWaterMark();
      const second = await api.request('POST', '/services/create', { socket: true, body: publishing('second', 9999) });
      expect(second).toMatchObject({ status: 400, body: { message: expect.stringMatching(/^port '9999' is already in use by service 'holder' \([0-9a-z]+\) as an ingress port$/) } });
      expect(await api.log.highWaterMark()).toBe(before);
      expect((await api.request('POST', '/services/create', { socket: true, body: publishing('other', 9998) })).status).toBe(201);
      expect(await api.request('POST', '/services/other/update?version=1', { socket: true, body: publishing('other', 9999) })).toMatchObject({ status: 400 });
      expect((await api.request('POST', '/services/holder/update?version=1', { socket: true, body: publishing('holder', 9999) })).status).toBe(200);
    });

    it('lets one of two updates from the same version win; the other gets "update out of sequence"', async () => {
      const created = await api.request('POST', '/services/create', { socket: true, body: service({ Name: 'race' }) });
      const id = (created.body as { ID: string }).ID;
      const update = (replicas: number) =>
        api.request('POST', `/services/${id}/update?version=1`, { socket: true, body: service({ Name: 'race', Mode: { Replicated: { Replicas: replicas } } }) });
      const answers = await Promise.all([update(5), update(7)]);
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409]);
      expect(answers.find((answer) => answer.status === 409)?.body).toEqual({ message: expect.stringMatching(/^update out of sequence/) });
      const after = await api.request('GET', `/services/${id}`, { socket: true });
      expect(after.body).toMatchObject({ Version: { Index: 2 } });
    });

    it('gives the records of one call one correlation id', async () => {
      const swarm = (await api.request('GET', '/swarm', { socket: true })).body as { Version: { Index: number }; Spec: { Orchestration: object } };
      const from = await api.log.highWaterMark();
      const updated = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}&rotateWorkerToken=true`, {
        socket: true,
        body: { ...swarm.Spec, Orchestration: { TaskHistoryRetentionLimit: 9 } },
      });
      expect(updated.status).toBe(200);
      const records = (await api.log.read(from)).map((record) => JSON.parse(record.value) as { type: string; correlation?: string });
      expect(records.map((record) => record.type)).toEqual(['ClusterSpecUpdated', 'JoinTokensRotated']);
      expect(records[0]!.correlation).toEqual(expect.any(String));
      expect(records[1]!.correlation).toBe(records[0]!.correlation);
    });

    it('writes nothing for a swarm update that changes nothing (what docker swarm join-token --rotate sends, without the rotation)', async () => {
      const swarm = (await api.request('GET', '/swarm', { socket: true })).body as { Version: { Index: number }; Spec: object };
      const before = await api.log.highWaterMark();
      expect((await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: swarm.Spec })).status).toBe(200);
      expect(await api.log.highWaterMark()).toBe(before);
    });

    it('answers 404 for what does not exist', async () => {
      expect(await api.request('GET', '/services/nope', { socket: true })).toMatchObject({ status: 404, body: { message: 'service nope not found' } });
      expect(await api.request('POST', '/nodes/nope/update?version=1', { socket: true, body: {} })).toMatchObject({ status: 404 });
      expect(await api.request('GET', '/tasks/nope', { socket: true })).toMatchObject({ status: 404 });
      // A task list filtered by a service or node that does not exist, as Docker's daemon answers it.
      const filter = (value: object) => `/tasks?filters=${encodeURIComponent(JSON.stringify(value))}`;
      expect(await api.request('GET', filter({ node: ['nope'] }), { socket: true })).toMatchObject({ status: 404, body: { message: 'node nope not found' } });
      expect(await api.request('GET', filter({ service: ['nope'] }), { socket: true })).toMatchObject({ status: 404, body: { message: 'service nope not found' } });
    });

    it('needs the version an update is based on', async () => {
      expect(await api.request('POST', '/services/ryw/update', { socket: true, body: service({ Name: 'ryw' }) })).toMatchObject({
        status: 400,
        body: { message: expect.stringMatching(/version/) },
      });
    });
  });
});

describe('swarm init', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ initialized: false });
  });
  afterAll(() => api.close());

  it('before init, is not a swarm manager', async () => {
    expect(await api.request('GET', '/swarm', { socket: true })).toMatchObject({ status: 503, body: { message: expect.stringMatching(/not a swarm manager/) } });
    expect((await api.request('GET', '/_ping', { socket: true })).headers.swarm).toBe('inactive');
    expect(await api.request('POST', '/swarm/join', { socket: true, body: { RemoteAddrs: ['10.0.0.1:2377'], JoinToken: 'SWMTKN-1-x' } })).toMatchObject({
      status: 503,
      body: { message: expect.stringMatching(/^Shoal's control plane manages a swarm of its own and joins none: use docker swarm init/) },
    });
  });

  it('creates the cluster once; a second init gets Docker\'s 503', async () => {
    const init = await api.request('POST', '/swarm/init', { socket: true, body: { ListenAddr: '0.0.0.0:2377', Spec: { Orchestration: { TaskHistoryRetentionLimit: 2 } } } });
    expect(init).toMatchObject({ status: 200, body: expect.stringMatching(/^[0-9a-z]{20,25}$/) });
    const swarm = await api.request('GET', '/swarm', { socket: true });
    expect(swarm).toMatchObject({ status: 200, body: { ID: api.cluster, Spec: { Orchestration: { TaskHistoryRetentionLimit: 2 } }, JoinTokens: { Worker: expect.stringMatching(/^SWMTKN-1-/) } } });
    expect(await api.request('POST', '/swarm/init', { socket: true, body: {} })).toMatchObject({
      status: 503,
      body: { message: expect.stringMatching(/^This node is already part of a swarm/) },
    });
  });

  it("refuses to leave: Docker's words to a last manager, and no erasing the log even with force", async () => {
    expect(await api.request('POST', '/swarm/leave', { socket: true })).toMatchObject({ status: 503, body: { message: expect.stringMatching(/^You are attempting to leave the swarm on a node that is participating as a manager/) } });
    expect(await api.request('POST', '/swarm/leave?force=1', { socket: true })).toMatchObject({ status: 503, body: { message: expect.stringMatching(/its state is the log, kept for the audit: leaving cannot erase it/) } });
    expect((await api.request('GET', '/swarm', { socket: true })).status).toBe(200);
  });
});
