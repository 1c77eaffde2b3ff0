/**
 * `docker config create`, `ls`, `inspect`, `rm`, a service that uses a config, and a stack
 * that brings its own, as a user types them. On either system (system-under-test.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerOutput } from '@shoal/testing';
import { serviceNamed } from './system-under-test';
import type { SystemHandle } from './system-under-test';

const APP_CONF = 'server {\n  listen 8080;\n}\n';

export const dockerConfigScenarios = (system: SystemHandle): void => {
  let file: string;
  beforeAll(() => {
    file = join(system.current.dataDir, 'app.conf');
    writeFileSync(file, APP_CONF);
  });

  const docker = async (...args: string[]) => dockerOutput(args, await system.current.docker(args));
  const configNamed = async (name: string) => [...(await system.current.state()).configs.values()].find((config) => config.spec.name === name);

  it('docker config create writes ConfigCreated and prints the id', async () => {
    const id = (await docker('config', 'create', 'app-conf', file)).trim();
    expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect((await system.current.state()).configs.get(id)?.spec).toEqual({ name: 'app-conf', data: Buffer.from(APP_CONF).toString('base64') });
    await docker('config', 'create', '--label', 'tier=db', 'db-conf', file);
  });

  it('docker config ls lists them, and filters by name and label', async () => {
    const db = (await configNamed('db-conf'))!;
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort()).toEqual(['app-conf', 'db-conf']);
    expect(await docker('config', 'ls', '--filter', 'label=tier=db', '--format', '{{.Name}}')).toBe('db-conf\n');
    expect(await docker('config', 'ls', '--filter', 'name=app', '--format', '{{.Name}}')).toBe('app-conf\n');
    expect(await docker('config', 'ls', '-q', '--filter', `id=${db.id.slice(0, 8)}`)).toBe(`${db.id}\n`);
  });

  it('docker config inspect shows the config, its data the file it was made from', async () => {
    const [config] = JSON.parse(await docker('config', 'inspect', 'app-conf')) as { ID: string; Version: { Index: number }; Spec: { Name: string; Data: string } }[];
    expect(config).toMatchObject({ ID: (await configNamed('app-conf'))!.id, Version: { Index: 1 }, Spec: { Name: 'app-conf' } });
    expect(Buffer.from(config!.Spec.Data, 'base64').toString()).toBe(APP_CONF);
    const missing = await system.current.docker(['config', 'inspect', 'nope']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/config nope not found/);
  });

  it('docker config create says why it refuses a bad name, a taken name and a template driver', async () => {
    const bad = await system.current.docker(['config', 'create', 'bad name', file]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Name: "bad name" is not a valid config name: only 64 \[a-zA-Z0-9-_.\] characters allowed/);
    const taken = await system.current.docker(['config', 'create', 'app-conf', file]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/config app-conf already exists/);
    const templated = await system.current.docker(['config', 'create', '--template-driver', 'golang', 'tpl', file]);
    expect(templated.code).not.toBe(0);
    expect(templated.stderr).toMatch(/templated configs are not supported by Shoal/);
  });

  it('docker service create --config gives the service the config as a file, and docker service inspect shows it', async () => {
    await docker('service', 'create', '--detach', '--name', 'web', '--config', 'src=app-conf,target=/etc/app.conf', 'nginx');
    const configs = JSON.parse(await docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Configs}}', 'web'));
    expect(configs).toEqual([{ File: { Name: '/etc/app.conf', UID: '0', GID: '0', Mode: 0o444 }, ConfigID: (await configNamed('app-conf'))!.id, ConfigName: 'app-conf' }]);
    const missing = await system.current.docker(['service', 'create', '--detach', '--name', 'api', '--config', 'gone', 'nginx']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/config not found: gone/);
  });

  it('docker config rm is refused while a service uses the config, and works once it is gone', async () => {
    const refused = await system.current.docker(['config', 'rm', 'app-conf']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/config 'app-conf' is in use by the following service: web/);
    expect(await configNamed('app-conf')).toBeDefined();
    expect(await docker('service', 'rm', 'web')).toBe('web\n');
    expect(await docker('config', 'rm', 'app-conf')).toBe('app-conf\n');
    expect(await configNamed('app-conf')).toBeUndefined();
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim()).toBe('db-conf');
  });

  it('docker stack deploy creates the configs a stack declares (and keeps them on a second deploy); docker stack rm removes them', async () => {
    const dir = system.current.dataDir;
    const compose = join(dir, 'stack.yml');
    writeFileSync(join(dir, 'site.conf'), 'listen 80;\n');
    writeFileSync(
      compose,
      'services:\n  app:\n    image: nginx:1.27\n    configs:\n      - source: site\n        target: /etc/nginx/conf.d/site.conf\nconfigs:\n  site:\n    file: ./site.conf\n',
    );
    const deployed = await docker('stack', 'deploy', '--detach', '-c', compose, 'demo');
    expect(deployed).toMatch(/Creating config demo_site/);
    expect(deployed).toMatch(/Creating service demo_app/);
    const site = (await configNamed('demo_site'))!;
    expect(site.spec.labels).toEqual({ 'com.docker.stack.namespace': 'demo' });
    const app = serviceNamed(await system.current.state(), 'demo_app');
    expect(app.spec.task.container.configs).toEqual([{ configId: site.id, configName: 'demo_site', file: { name: '/etc/nginx/conf.d/site.conf', uid: '0', gid: '0', mode: 0o444 } }]);

    // A second deploy updates the config that exists (same data): allowed, as only its labels may change.
    expect(await docker('stack', 'deploy', '--detach', '-c', compose, 'demo')).not.toMatch(/Creating config/);
    expect(await configNamed('demo_site')).toMatchObject({ id: site.id, version: 2 });

    const removed = await docker('stack', 'rm', 'demo');
    expect(removed).toMatch(/Removing service demo_app/);
    expect(removed).toMatch(/Removing config demo_site/);
    expect(await configNamed('demo_site')).toBeUndefined();
    expect((await docker('config', 'ls', '--format', '{{.Name}}')).trim()).toBe('db-conf');
  });
};
