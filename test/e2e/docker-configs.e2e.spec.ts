/**
 * The real docker CLI (v28, unmodified) against the API: `docker config create`, `ls`,
 * `inspect`, `rm`, a service that uses a config, and a stack that brings its own. The API
 * runs in this process on an embedded log; the docker binary is a separate process
 * talking to its unix socket. `--detach`: convergence needs the other components.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerOutput } from '@shoal/testing';
import { startApi } from '../../apps/api/src/testing/api-harness';
import type { ApiHarness } from '../../apps/api/src/testing/api-harness';

const APP_CONF = 'server {\n  listen 8080;\n}\n';

describe('docker config, against Shoal', () => {
  let api: ApiHarness;
  let file: string;

  beforeAll(async () => {
    api = await startApi();
    file = join(api.dataDir, 'app.conf');
    writeFileSync(file, APP_CONF);
  });
  afterAll(() => api.close());

  const docker = async (...args: string[]) => dockerOutput(args, await api.docker(args));
  const configNamed = (name: string) => [...api.view.state.configs.values()].find((config) => config.spec.name === name);

  it('docker config create writes ConfigCreated and prints the id', async () => {
    const id = (await docker('config', 'create', 'app-conf', file)).trim();
    expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect(api.view.state.configs.get(id)?.spec).toEqual({ name: 'app-conf', data: Buffer.from(APP_CONF).toString('base64') });
    await docker('config', 'create', '--label', 'tier=db', 'db-conf', file);
  });

  it('docker config ls lists them, and filters by name and label', async () => {
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort()).toEqual(['app-conf', 'db-conf']);
    expect(await docker('config', 'ls', '--filter', 'label=tier=db', '--format', '{{.Name}}')).toBe('db-conf\n');
    expect(await docker('config', 'ls', '--filter', 'name=app', '--format', '{{.Name}}')).toBe('app-conf\n');
    expect(await docker('config', 'ls', '-q', '--filter', `id=${configNamed('db-conf')!.id.slice(0, 8)}`)).toBe(`${configNamed('db-conf')!.id}\n`);
  });

  it('docker config inspect shows the config, its data the file it was made from', async () => {
    const [config] = JSON.parse(await docker('config', 'inspect', 'app-conf')) as { ID: string; Version: { Index: number }; Spec: { Name: string; Data: string } }[];
    expect(config).toMatchObject({ ID: configNamed('app-conf')!.id, Version: { Index: 1 }, Spec: { Name: 'app-conf' } });
    expect(Buffer.from(config!.Spec.Data, 'base64').toString()).toBe(APP_CONF);
    const missing = await api.docker(['config', 'inspect', 'nope']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/config nope not found/);
  });

  it('docker config create says why it refuses a bad name, a taken name and a template driver', async () => {
    const bad = await api.docker(['config', 'create', 'bad name', file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Name: "bad name" is not a valid config name: only 64 \[a-zA-Z0-9-_.\] characters allowed/);
    const taken = await api.docker(['config', 'create', 'app-conf', file]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/config app-conf already exists/);
    const templated = await api.docker(['config', 'create', '--template-driver', 'golang', 'tpl', file]);
    expect(templated.code).not.toBe(0);
    expect(templated.stderr).toMatch(/templated configs are not supported by Shoal/);
  });

  it('docker service create --config gives the service the config as a file, and docker service inspect shows it', async () => {
    await docker('service', 'create', '--detach', '--name', 'web', '--config', 'src=app-conf,target=/etc/app.conf', 'nginx');
    const configs = JSON.parse(await docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Configs}}', 'web'));
    expect(configs).toEqual([{ File: { Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 }, ConfigID: configNamed('app-conf')!.id, ConfigName: 'app-conf' }]);
    const missing = await api.docker(['service', 'create', '--detach', '--name', 'api', '--config', 'gone', 'nginx']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/config not found: gone/);
  });

  it('docker config rm is refused while a service uses the config, and works once it is gone', async () => {
    const refused = await api.docker(['config', 'rm', 'app-conf']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/config 'app-conf' is in use by the following service: web/);
    expect(configNamed('app-conf')).toBeDefined();
    expect(await docker('service', 'rm', 'web')).toBe('web\n');
    expect(await docker('config', 'rm', 'app-conf')).toBe('app-conf\n');
    expect(configNamed('app-conf')).toBeUndefined();
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim()).toBe('db-conf');
  });

  it('docker stack deploy creates the configs a stack declares (and keeps them on a second deploy); docker stack rm removes them', async () => {
    const compose = join(api.dataDir, 'stack.yml');
    writeFileSync(join(api.dataDir, 'site.conf'), 'listen 80;\n');
    writeFileSync(
      compose,
      'services:\n  app:\n    image: nginx:1.27\n    configs:\n      - source: site\n        target: /etc/nginx/conf.d/site.conf\nconfigs:\n  site:\n    file: ./site.conf\n',
    );
    const deployed = await docker('stack', 'deploy', '--detach', '-c', compose, 'demo');
    expect(deployed).toMatch(/Creating config demo_site/);
    expect(deployed).toMatch(/Creating service demo_app/);
    const site = configNamed('demo_site')!;
    expect(site.spec.labels).toEqual({ 'com.docker.stack.namespace': 'demo' });
    const app = [...api.view.state.services.values()].find((service) => service.spec.name === 'demo_app')!;
    expect(app.spec.task.container.configs).toEqual([{ configId: site.id, configName: 'demo_site', file: { name: '/etc/nginx/conf.d/site.conf', uid: '0', gid: '0', mode: 0o444 } }]);

    // A second deploy updates the config that exists (same data): allowed, as only its labels may change.
    expect(await docker('stack', 'deploy', '--detach', '-c', compose, 'demo')).not.toMatch(/Creating config/);
    expect(configNamed('demo_site')).toMatchObject({ id: site.id, version: 2 });

    const removed = await docker('stack', 'rm', 'demo');
    expect(removed).toMatch(/Removing service demo_app/);
    expect(removed).toMatch(/Removing config demo_site/);
    expect(configNamed('demo_site')).toBeUndefined();
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim()).toBe('db-conf');
  });
});
