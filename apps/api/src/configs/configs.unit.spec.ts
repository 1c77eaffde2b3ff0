/**
 * Docker's /configs, and services that use configs, over HTTP: the whole API in this
 * process on an embedded log (its real body limit, validation and error shape).
 */
import { MAX_CONFIG_BYTES } from '@shoal/contracts';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';
import type { AuditPage } from '../audit/audit.service';
import type { DockerService } from '@shoal/docker-api';
import type { DockerConfig } from './config-mapper';

const base64 = (text: string): string => Buffer.from(text).toString('base64');
const APP_CONF = 'listen 8080;\n';

describe("Docker's /configs", () => {
  let api: ApiHarness;
  let appConfId = '';
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const call = async <T = { message: string }>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await api.request(method, path, { socket: true, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: res.body as T };
  };
  const create = (body: unknown) => call<{ ID: string; message: string }>('POST', '/configs/create', body);
  const list = async (filters?: object): Promise<string[]> => {
    const path = filters ? `/configs?filters=${encodeURIComponent(JSON.stringify(filters))}` : '/configs';
    const { status, body } = await call<DockerConfig[]>('GET', path);
    expect(status).toBe(200);
    return body.map((config) => config.Spec.Name).sort();
  };
  const idOf = (name: string): string => [...api.view.state.configs.values()].find((config) => config.spec.name === name)!.id;
  const writesNothing = async <T>(request: () => Promise<T>): Promise<T> => {
    const before = await api.log.highWaterMark();
    const result = await request();
    expect(await api.log.highWaterMark()).toBe(before);
    return result;
  };

  describe('create, inspect, list', () => {
    it('creates a config through the log and answers 201 with its id once it is applied', async () => {
      const before = await api.log.highWaterMark();
      const { status, body } = await create({ Name: 'app-conf', Labels: { tier: 'web' }, Data: base64(APP_CONF) });
      expect(status).toBe(201);
      expect(body).toEqual({ ID: expect.stringMatching(/^[0-9a-z]{25}$/) });
      expect(await api.log.highWaterMark()).toBe(before + 1);
      expect(api.view.state.configs.get(body.ID)?.spec).toEqual({ name: 'app-conf', labels: { tier: 'web' }, data: base64(APP_CONF) });
      appConfId = body.ID;
    });

    it("inspects by id, name or id prefix in Docker's shape, with the data", async () => {
      const byName = await call<DockerConfig>('GET', '/configs/app-conf');
      expect(byName.status).toBe(200);
      const id = idOf('app-conf');
      expect(byName.body).toEqual({
        ID: id,
        Version: { Index: 1 },
        CreatedAt: api.view.state.configs.get(id)!.createdAt,
        UpdatedAt: api.view.state.configs.get(id)!.updatedAt,
        Spec: { Name: 'app-conf', Labels: { tier: 'web' }, Data: base64(APP_CONF) },
      });
      expect(Buffer.from(byName.body.Spec.Data, 'base64').toString()).toBe(APP_CONF);
      expect((await call<DockerConfig>('GET', `/configs/${id}`)).body.Spec.Name).toBe('app-conf');
      expect((await call<DockerConfig>('GET', `/v1.47/configs/${id.slice(0, 5)}`)).body.Spec.Name).toBe('app-conf');
      expect(await call('GET', '/configs/nope')).toEqual({ status: 404, body: { message: 'config nope not found' } });
    });

    it('shows an unlabelled config with empty labels', async () => {
      expect((await create({ Name: 'db.conf', Data: base64('port=5432\n') })).status).toBe(201);
      expect((await call<DockerConfig>('GET', '/configs/db.conf')).body.Spec).toEqual({ Name: 'db.conf', Labels: {}, Data: base64('port=5432\n') });
    });

    it("lists with Docker's filters: id and name by prefix, names exactly, labels by key or key=value", async () => {
      expect((await create({ Name: 'demo_nginx', Labels: { 'com.docker.stack.namespace': 'demo' }, Data: base64('x') })).status).toBe(201);
      expect(await list()).toEqual(['app-conf', 'db.conf', 'demo_nginx']);
      expect(await list({ name: { app: true } })).toEqual(['app-conf']);
      expect(await list({ name: ['app', 'db'] })).toEqual(['app-conf', 'db.conf']);
      expect(await list({ names: ['app'] })).toEqual([]);
      expect(await list({ names: ['app-conf'] })).toEqual(['app-conf']);
      expect(await list({ id: [idOf('db.conf').slice(0, 6)] })).toEqual(['db.conf']);
      expect(await list({ label: ['tier'] })).toEqual(['app-conf']);
      expect(await list({ label: ['tier='] })).toEqual(['app-conf']);
      expect(await list({ label: ['tier=db'] })).toEqual([]);
      expect(await list({ label: { 'com.docker.stack.namespace=demo': true } })).toEqual(['demo_nginx']);
      expect(await list({ name: ['app'], label: ['com.docker.stack.namespace=demo'] })).toEqual([]);
      expect(await call('GET', `/configs?filters=${encodeURIComponent('{"colour":["red"]}')}`)).toEqual({ status: 400, body: { message: "Invalid filter 'colour'" } });
    });
  });

  describe('refusals on create: 400 with the field and the reason, 409 for a taken name, nothing on the log', () => {
    it("refuses a name that is taken with Docker's conflict", async () => {
      expect(await writesNothing(() => create({ Name: 'app-conf', Data: base64('other') }))).toEqual({ status: 409, body: { message: 'config app-conf already exists' } });
    });

    it.each<[string, unknown, RegExp]>([
      ['no body', undefined, /^got EOF while reading request body$/],
      ['no name', { Data: base64('x') }, /^invalid Name: a config name is required$/],
      ['a name that is not a string', { Name: 42, Data: base64('x') }, /^json: cannot unmarshal number into Go struct field ConfigSpec\.Name of type string$/],
      ['a name with a space', { Name: 'bad name', Data: base64('x') }, /Name: "bad name" is not a valid config name: only 64 \[a-zA-Z0-9-_.\] characters allowed, and the start and end character must be \[a-zA-Z0-9\]/],
      ['a name ending in a dot', { Name: 'conf.', Data: base64('x') }, /Name: "conf\." is not a valid config name/],
      ['a name of 65 characters', { Name: 'a'.repeat(65), Data: base64('x') }, /Name: "a{65}" is not a valid config name: only 64/],
      // Go's words for a []byte that is not base64: where its decoder stopped.
      ['data that is not base64', { Name: 'x', Data: 'not base64!' }, /^illegal base64 data at input byte 3$/],
      ['unpadded base64', { Name: 'x', Data: 'YWI' }, /^illegal base64 data at input byte 0$/],
      ['no data', { Name: 'x' }, /^invalid Data: config data must be larger than 0 and less than 1024000 bytes: this one is empty$/],
      ['empty data', { Name: 'x', Data: '' }, /invalid Data: config data must be larger than 0 and less than 1024000 bytes: this one is empty/],
      ['a template driver', { Name: 'x', Data: base64('x'), Templating: { Name: 'golang' } }, /^invalid Templating: templated configs are not supported by Shoal/],
      ['labels that are not an object', { Name: 'x', Data: base64('x'), Labels: ['a'] }, /^json: cannot unmarshal array into Go struct field ConfigSpec\.Labels of type map\[string\]string$/],
      ['a label that is not a string', { Name: 'x', Data: base64('x'), Labels: { n: 1 } }, /^json: cannot unmarshal number into Go struct field ConfigSpec\.Labels of type string$/],
    ])('%s', async (_case, body, message) => {
      const res = await writesNothing(() => create(body));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it(`takes data of ${MAX_CONFIG_BYTES} bytes (less than swarmkit's 1000 KiB) and refuses one byte more, saying the limit`, async () => {
      const over = await writesNothing(() => create({ Name: 'big', Data: Buffer.alloc(MAX_CONFIG_BYTES + 1, 'a').toString('base64') }));
      expect(over).toEqual({ status: 400, body: { message: 'invalid Data: config data must be larger than 0 and less than 1024000 bytes: this one is 1024000 bytes' } });
      const largest = await create({ Name: 'big', Data: Buffer.alloc(MAX_CONFIG_BYTES, 'a').toString('base64') });
      expect(largest.status).toBe(201);
      expect(Buffer.from(api.view.state.configs.get(largest.body.ID)!.spec.data, 'base64').length).toBe(MAX_CONFIG_BYTES);
      expect((await call('DELETE', '/configs/big')).status).toBe(204);
    });
  });

  describe('update: only the labels, at the version read', () => {
    const update = (ref: string, version: number | undefined, body: unknown) =>
      call('POST', `/configs/${ref}/update${version === undefined ? '' : `?version=${version}`}`, body);

    it('relabels a config at its version; the version moves on', async () => {
      const res = await update('app-conf', 1, { Name: 'app-conf', Labels: { tier: 'edge' }, Data: base64(APP_CONF) });
      expect(res.status).toBe(200);
      const after = (await call<DockerConfig>('GET', '/configs/app-conf')).body;
      expect(after.Version).toEqual({ Index: 2 });
      expect(after.Spec).toEqual({ Name: 'app-conf', Labels: { tier: 'edge' }, Data: base64(APP_CONF) });
    });

    it('keeps the data when the update leaves it out, and clears labels it leaves out (the body is the whole spec)', async () => {
      expect((await update('app-conf', 2, { Name: 'app-conf' })).status).toBe(200);
      expect((await call<DockerConfig>('GET', '/configs/app-conf')).body).toMatchObject({ Version: { Index: 3 }, Spec: { Name: 'app-conf', Labels: {}, Data: base64(APP_CONF) } });
    });

    it('refuses a stale version as out of sequence (409)', async () => {
      const res = await update('app-conf', 1, { Name: 'app-conf', Labels: { tier: 'x' } });
      expect(res).toEqual({ status: 409, body: { message: `update out of sequence: config ${idOf('app-conf')} is at version 3, not 1` } });
      expect(api.view.state.configs.get(idOf('app-conf'))?.spec.labels).toBeUndefined();
    });

    it.each<[string, number | undefined, unknown, RegExp]>([
      ['no version', undefined, { Name: 'app-conf' }, /^invalid version: the "version" query parameter must be the object's Version\.Index/],
      ['new data', 3, { Name: 'app-conf', Data: base64('listen 9090;\n') }, /^invalid Data: only updates to labels are allowed: the data of config app-conf cannot change/],
      ['a new name', 3, { Name: 'app-conf-2', Data: base64(APP_CONF) }, /^invalid Name: only updates to labels are allowed: config app-conf cannot be renamed to app-conf-2$/],
      ['a template driver', 3, { Name: 'app-conf', Templating: { Name: 'golang' } }, /^invalid Templating: templated configs are not supported/],
      ['a new name', 3, { Name: 'no way' }, /Name: only updates to labels are allowed: config app-conf cannot be renamed to no way/],
    ])('refuses %s with 400, writing nothing', async (_case, version, body, message) => {
      const res = await writesNothing(() => update('app-conf', version, body));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it('answers 404 for a config that is not there', async () => {
      expect(await writesNothing(() => update('nope', 1, { Name: 'nope' }))).toEqual({ status: 404, body: { message: 'config nope not found' } });
    });
  });

  describe('services that use configs', () => {
    const service = (name: string, configs: unknown) => ({
      Name: name,
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27', Configs: configs } },
      Mode: { Replicated: { Replicas: 1 } },
    });

    it('creates a service with a config as a file (Docker\'s defaults filled in) and shows it in inspect', async () => {
      const id = idOf('app-conf');
      const created = await call<{ ID: string }>('POST', '/services/create', service('web', [{ File: { Name: '/etc/app.conf' }, ConfigID: id, ConfigName: 'app-conf' }]));
      expect(created.status).toBe(201);
      expect(api.view.state.services.get(created.body.ID)?.spec.task.container.configs).toEqual([
        { configId: id, configName: 'app-conf', file: { name: '/etc/app.conf', uid: '0', gid: '0', mode: 0o444 } },
      ]);
      const inspected = await call<DockerService>('GET', '/services/web');
      expect(inspected.body.Spec.TaskTemplate?.ContainerSpec?.Configs).toEqual([{ File: { Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 }, ConfigID: id, ConfigName: 'app-conf' }]);
    });

    it("refuses configs that do not exist, or not under the name given, with swarmkit's 400 naming them, writing nothing", async () => {
      const res = await writesNothing(() => call('POST', '/services/create', service('api', [{ File: { Name: '/etc/x' }, ConfigID: 'c0nf1gthatisnotthere00000', ConfigName: 'gone' }])));
      expect(res).toEqual({ status: 400, body: { message: 'config not found: gone' } });
      const id = (await call<{ ID: string }[]>('GET', '/configs')).body.find(() => true)!.ID;
      const misnamed = await writesNothing(() =>
        call('POST', '/services/create', service('api', [{ File: { Name: '/etc/x' }, ConfigID: id, ConfigName: 'other-name' }, { File: { Name: '/etc/y' }, ConfigID: 'nope', ConfigName: 'gone' }])),
      );
      expect(misnamed).toEqual({ status: 400, body: { message: 'configs not found: other-name, gone' } });
    });

    it.each<[string, unknown, RegExp]>([
      ['a runtime target', [{ Runtime: {}, ConfigID: 'x', ConfigName: 'x' }], /invalid TaskTemplate\.ContainerSpec\.Configs\[0\]\.Runtime: runtime targets \(credential specs\) are not supported by Shoal/],
      ['no config id', [{ File: { Name: '/etc/x' }, ConfigName: 'app-conf' }], /invalid TaskTemplate\.ContainerSpec\.Configs\[0\]\.ConfigID: a config id is required/],
      ['a mode that is not a number', [{ File: { Name: '/etc/x', Mode: 'rw' }, ConfigID: 'x', ConfigName: 'x' }], /^json: cannot unmarshal string into Go struct field ConfigReferenceFileTarget\.TaskTemplate\.ContainerSpec\.Configs\.File\.Mode of type os\.FileMode$/],
    ])('refuses %s with 400, writing nothing', async (_case, configs, message) => {
      const res = await writesNothing(() => call('POST', '/services/create', service('api', configs)));
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it("checks the configs of an update too: a missing one is 400 and the service's spec stays", async () => {
      const web = (await call<DockerService>('GET', '/services/web')).body;
      const spec = { ...web.Spec, TaskTemplate: { ...web.Spec.TaskTemplate, ContainerSpec: { ...web.Spec.TaskTemplate!.ContainerSpec, Configs: [{ File: { Name: '/etc/y' }, ConfigID: 'missing', ConfigName: 'y' }] } } };
      expect(await writesNothing(() => call('POST', `/services/web/update?version=${web.Version.Index}`, spec))).toEqual({ status: 400, body: { message: 'config not found: y' } });
    });
  });

  describe('remove', () => {
    it("refuses (400, as Docker's InvalidArgument) a config a service uses, with evolve's reason", async () => {
      const res = await call('DELETE', '/configs/app-conf');
      expect(res).toEqual({ status: 400, body: { message: "config 'app-conf' is in use by the following service: web" } });
      expect(api.view.state.configs.has(idOf('app-conf'))).toBe(true);
    });

    it('names every service that uses it', async () => {
      const id = idOf('app-conf');
      const api2 = { Name: 'api', TaskTemplate: { ContainerSpec: { Image: 'x', Configs: [{ File: { Name: 'app.conf' }, ConfigID: id, ConfigName: 'app-conf' }] } } };
      expect((await call('POST', '/services/create', api2)).status).toBe(201);
      expect(await call('DELETE', `/configs/${id}`)).toEqual({ status: 400, body: { message: "config 'app-conf' is in use by the following services: web, api" } });
    });

    it('removes it once no service uses it (204), then it is not found', async () => {
      expect((await call('DELETE', '/services/web')).status).toBe(200);
      expect((await call('DELETE', '/services/api')).status).toBe(200);
      const removed = await call('DELETE', '/configs/app-conf');
      expect(removed.status).toBe(204);
      expect(await list()).toEqual(['db.conf', 'demo_nginx']);
      expect(await call('DELETE', '/configs/app-conf')).toEqual({ status: 404, body: { message: 'config app-conf not found' } });
    });
  });

  it("keeps every write to a config in the audit, refusals included, found by the config's id or name", async () => {
    const byId = await call<AuditPage>('GET', `/shoal/v1/audit/events?entity=${appConfId}`);
    expect(byId.body.records.map((r) => `${r.type} ${r.verdict.status}`)).toEqual([
      'ConfigCreated applied',
      'ConfigUpdated applied',
      'ConfigUpdated applied',
      'ConfigUpdated rejected',
      'ConfigRemoved rejected',
      'ConfigRemoved rejected',
      'ConfigRemoved applied',
    ]);
    expect(byId.body.records[0]!.entities).toEqual([{ kind: 'config', id: appConfId }]);
    const byName = await call<AuditPage>('GET', '/shoal/v1/audit/events?entity=db.conf');
    expect(byName.body.records.map((r) => [r.type, r.data])).toEqual([['ConfigCreated', { id: idOf('db.conf'), spec: { name: 'db.conf', data: base64('port=5432\n') } }]]);
  });

});
