/**
 * Docker's /secrets, and services that use secrets, over HTTP: the whole API in this
 * process on an embedded log, its data keys as files in its data directory.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { LOG_LEVEL, MAX_SECRET_BYTES } from '@shoal/contracts';
import { SecretKeyMissingError } from '@shoal/runtime';
import type { DockerService } from '@shoal/docker-api';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';
import type { AuditPage } from '../audit/audit.service';
import { ApiSecretVault } from './api-secret-vault';
import type { DockerSecret } from './secret-mapper';

const PASSWORD = 'correct horse battery staple';
const base64 = (text: string): string => Buffer.from(text).toString('base64');

describe("Docker's /secrets", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ logLevel: LOG_LEVEL });
  });
  afterAll(() => api.close());

  const call = async <T = { message: string }>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> => {
    const res = await api.request(method, path, { socket: true, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: res.body as T };
  };
  const idOf = (name: string): string => [...api.view.state.secrets.values()].find((secret) => secret.spec.name === name)!.id;
  const vault = () => api.app.get(ApiSecretVault).vault();
  const writesNothing = async <T>(request: () => Promise<T>): Promise<T> => {
    const before = await api.log.highWaterMark();
    const result = await request();
    expect(await api.log.highWaterMark()).toBe(before);
    return result;
  };
  const wholeLog = async (): Promise<string> => (await api.log.read(0)).map((record) => record.value).join('\n');

  describe('create, inspect, list', () => {
    it('creates a secret through the log, sealed: the log holds neither its bytes nor their base64, and its data key opens them', async () => {
      const before = await api.log.highWaterMark();
      const { status, body } = await call<{ ID: string }>('POST', '/secrets/create', { Name: 'db-password', Labels: { tier: 'db' }, Data: base64(PASSWORD) });
      expect(status).toBe(201);
      expect(body).toEqual({ ID: expect.stringMatching(/^[0-9a-z]{25}$/) });
      expect(await api.log.highWaterMark()).toBe(before + 1);
      const log = await wholeLog();
      expect(log).toContain('"SecretCreated"');
      expect(log).not.toContain(PASSWORD);
      expect(log).not.toContain(base64(PASSWORD));
      const secret = api.view.state.secrets.get(body.ID)!;
      expect(secret.spec).toEqual({ name: 'db-password', labels: { tier: 'db' } });
      expect((await (await vault()).open(body.ID, secret.data.sealed)).toString()).toBe(PASSWORD);
    });

    it("inspects by id, name or id prefix in Docker's shape, never with the data", async () => {
      const id = idOf('db-password');
      const secret = api.view.state.secrets.get(id)!;
      const expected: DockerSecret = { ID: id, Version: { Index: 1 }, CreatedAt: secret.createdAt, UpdatedAt: secret.updatedAt, Spec: { Name: 'db-password', Labels: { tier: 'db' } } };
      for (const ref of [id, 'db-password', id.slice(0, 6)]) expect(await call('GET', `/secrets/${ref}`)).toEqual({ status: 200, body: expected });
      expect(await call('GET', '/secrets/nope')).toEqual({ status: 404, body: { message: 'secret nope not found' } });
    });

    it("lists with Docker's filters; an unlabelled secret shows empty labels", async () => {
      expect((await call('POST', '/secrets/create', { Name: 'api-token', Data: base64('t0k3n') })).status).toBe(201);
      const names = async (filters?: object): Promise<string[]> => {
        const { body } = await call<DockerSecret[]>('GET', filters ? `/secrets?filters=${encodeURIComponent(JSON.stringify(filters))}` : '/secrets');
        return body.map((secret) => secret.Spec.Name).sort();
      };
      expect(await names()).toEqual(['api-token', 'db-password']);
      expect(await names({ label: ['tier=db'] })).toEqual(['db-password']);
      expect(await names({ name: ['api'] })).toEqual(['api-token']);
      expect(await names({ names: ['api'] })).toEqual([]);
      expect((await call<DockerSecret>('GET', '/secrets/api-token')).body.Spec.Labels).toEqual({});
    });
  });

  describe('refusals on create: 400 with the field and the reason, 409 for a taken name, nothing on the log', () => {
    it.each<[string, unknown, number, RegExp]>([
      ['a taken name', { Name: 'db-password', Data: base64('x') }, 409, /^secret db-password already exists$/],
      ['no data', { Name: 'empty' }, 400, /^invalid Data: secret data must be larger than 0 and less than 512000 bytes: this one is empty$/],
      ['too much data', { Name: 'big', Data: Buffer.alloc(MAX_SECRET_BYTES).toString('base64') }, 400, /less than 512000 bytes: this one is 512000 bytes$/],
      ['a bad name', { Name: '-x', Data: base64('x') }, 400, /^invalid Name: "-x" is not a valid secret name/],
      ['a secret store driver', { Name: 'ext', Data: base64('x'), Driver: { Name: 'vault' } }, 400, /^invalid Driver: secret store drivers are not supported by Shoal/],
      ['templating', { Name: 'tpl', Data: base64('x'), Templating: { Name: 'golang' } }, 400, /^invalid Templating: templated secrets are not supported by Shoal/],
      ['data that is not base64', { Name: 'raw', Data: 'not base64!' }, 400, /illegal base64 data/],
    ])('refuses %s', async (_case, body, status, message) => {
      const res = await writesNothing(() => call('POST', '/secrets/create', body));
      expect(res.status).toBe(status);
      expect(res.body.message).toMatch(message);
    });
  });

  describe('update: only the labels, at the version read', () => {
    it('relabels a secret at its version; the version moves on', async () => {
      expect((await call('POST', '/secrets/db-password/update?version=1', { Name: 'db-password', Labels: { tier: 'db', rotated: 'no' } })).status).toBe(200);
      const { body } = await call<DockerSecret>('GET', '/secrets/db-password');
      expect(body.Version).toEqual({ Index: 2 });
      expect(body.Spec.Labels).toEqual({ tier: 'db', rotated: 'no' });
    });

    it('takes the same data in an update (what docker stack deploy sends), and refuses other data, a new name and a stale version, as SwarmKit', async () => {
      expect((await call('POST', '/secrets/db-password/update?version=2', { Name: 'db-password', Labels: { tier: 'db', rotated: 'no' }, Data: base64(PASSWORD) })).status).toBe(200);
      expect(await writesNothing(() => call('POST', '/secrets/db-password/update?version=3', { Name: 'db-password', Data: base64('another password') }))).toEqual({
        status: 400,
        body: { message: 'invalid Data: only updates to Labels are allowed: the data of secret db-password cannot change (create a new secret and point the service at it)' },
      });
      expect((await call('POST', '/secrets/db-password/update?version=3', { Name: 'renamed' })).status).toBe(400);
      expect(await call('POST', '/secrets/db-password/update?version=1', { Name: 'db-password' })).toEqual({
        status: 409,
        body: { message: `update out of sequence: secret ${idOf('db-password')} is at version 3, not 1` },
      });
    });
  });

  describe('services that use secrets', () => {
    const service = (name: string, secrets: unknown) => ({ Name: name, TaskTemplate: { ContainerSpec: { Image: 'busybox', Secrets: secrets } } });

    it("creates a service with a secret as a file (the docker CLI's defaults filled in) and shows it in inspect", async () => {
      const id = idOf('db-password');
      const created = await call<{ ID: string }>('POST', '/services/create', service('db', [{ File: { Name: 'db-password' }, SecretID: id, SecretName: 'db-password' }]));
      expect(created.status).toBe(201);
      expect(api.view.state.services.get(created.body.ID)?.spec.task.container.secrets).toEqual([
        { secretId: id, secretName: 'db-password', file: { name: 'db-password', uid: '0', gid: '0', mode: 0o444 } },
      ]);
      const inspected = await call<DockerService>('GET', '/services/db');
      expect(inspected.body.Spec.TaskTemplate?.ContainerSpec?.Secrets).toEqual([{ File: { Name: 'db-password', UID: '0', GID: '0', Mode: 0o444 }, SecretID: id, SecretName: 'db-password' }]);
    });

    it("refuses secrets that do not exist, or two at one target, with a 400 naming them, writing nothing", async () => {
      expect(await writesNothing(() => call('POST', '/services/create', service('x', [{ File: { Name: 'a' }, SecretID: 'n0t', SecretName: 'gone' }])))).toEqual({
        status: 400,
        body: { message: 'secret not found: gone' },
      });
      const id = idOf('db-password');
      const twice = await writesNothing(() =>
        call('POST', '/services/create', service('x', [{ File: { Name: 'same' }, SecretID: id, SecretName: 'db-password' }, { File: { Name: 'same' }, SecretID: idOf('api-token'), SecretName: 'api-token' }])),
      );
      expect(twice).toEqual({ status: 400, body: { message: "invalid TaskTemplate.ContainerSpec.Secrets[1].File.Name: secret references 'db-password' and 'api-token' have a conflicting target: 'same'" } });
    });
  });

  describe('remove: the data key is destroyed with the secret', () => {
    it("refuses (400) a secret a service uses, with evolve's reason, and keeps its key", async () => {
      expect(await call('DELETE', '/secrets/db-password')).toEqual({ status: 400, body: { message: "secret 'db-password' is in use by the following service: db" } });
      const id = idOf('db-password');
      expect(existsSync(join(api.dataDir, 'secret-keys', `${id}.key`))).toBe(true);
    });

    it('removes it once no service uses it (204); its sealed bytes on the log can never be opened again', async () => {
      const id = idOf('db-password');
      const { sealed } = api.view.state.secrets.get(id)!.data;
      expect((await call('DELETE', '/services/db')).status).toBe(200);
      expect((await call('DELETE', '/secrets/db-password')).status).toBe(204);
      expect(api.view.state.secrets.has(id)).toBe(false);
      expect(existsSync(join(api.dataDir, 'secret-keys', `${id}.key`))).toBe(false);
      await expect((await vault()).open(id, sealed)).rejects.toThrow(SecretKeyMissingError);
      expect(await wholeLog()).toContain(sealed);
      expect(await call('DELETE', '/secrets/db-password')).toEqual({ status: 404, body: { message: 'secret db-password not found' } });
    });

    it("keeps the secret's story in the audit: created, relabelled (a stale update refused), taken up by a service, removed", async () => {
      const created = (await api.log.read(0)).map((record) => JSON.parse(record.value) as { type: string; data: { id: string; spec: { name: string } } }).find((event) => event.type === 'SecretCreated' && event.data.spec.name === 'db-password')!;
      const story = await call<AuditPage>('GET', `/shoal/v1/audit/events?entity=${created.data.id}`);
      expect(story.body.records.map((r) => `${r.type} ${r.verdict.status}`)).toEqual([
        'SecretCreated applied',
        'SecretUpdated applied',
        'SecretUpdated applied',
        'SecretUpdated rejected',
        'ServiceCreated applied',
        'SecretRemoved rejected',
        'SecretRemoved applied',
      ]);
    });
  });
});
