/**
 * `docker secret create`, `ls`, `inspect`, `rm`, a service that uses a secret, and a stack
 * that brings its own, as a user types them. On either system (system-under-test.ts): the
 * secret's bytes never show, on the log or on the wire back.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { dockerOutput } from '@shoal/testing';
import { serviceNamed } from './system-under-test';
import type { SystemHandle } from './system-under-test';

const PASSWORD = 'correct horse battery staple\n';

export const dockerSecretScenarios = (system: SystemHandle): void => {
  let file: string;
  beforeAll(() => {
    file = join(system.current.dataDir, 'db-password.txt');
    writeFileSync(file, PASSWORD);
  });

  const docker = async (...args: string[]) => dockerOutput(args, await system.current.docker(args));
  const secretNamed = async (name: string) => [...(await system.current.state()).secrets.values()].find((secret) => secret.spec.name === name);

  it('docker secret create writes SecretCreated, its bytes sealed, and prints the id', async () => {
    const id = (await docker('secret', 'create', '--label', 'tier=db', 'db-password', file)).trim();
    expect(id).toMatch(/^[0-9a-z]{25}$/);
    const secret = (await system.current.state()).secrets.get(id)!;
    expect(secret.spec).toEqual({ name: 'db-password', labels: { tier: 'db' } });
    const sealed = Buffer.from(secret.data.sealed, 'base64');
    expect(sealed.length).toBe(Buffer.byteLength(PASSWORD) + 28);
    expect(sealed.includes(Buffer.from(PASSWORD))).toBe(false);
    await docker('secret', 'create', 'api-token', file);
  });

  it('docker secret ls lists them and filters by name and label; docker secret inspect shows no data', async () => {
    expect((await docker('secret', 'ls', '--format', '{{.Name}}')).trim().split('\n').sort()).toEqual(['api-token', 'db-password']);
    expect(await docker('secret', 'ls', '--filter', 'label=tier=db', '--format', '{{.Name}}')).toBe('db-password\n');
    expect(await docker('secret', 'ls', '--filter', 'name=api', '--format', '{{.Name}}')).toBe('api-token\n');
    const inspected = await docker('secret', 'inspect', 'db-password');
    const [secret] = JSON.parse(inspected) as { ID: string; Spec: Record<string, unknown> }[];
    expect(secret).toMatchObject({ ID: (await secretNamed('db-password'))!.id, Spec: { Name: 'db-password', Labels: { tier: 'db' } } });
    expect(Object.keys(secret!.Spec).sort()).toEqual(['Labels', 'Name']);
    expect(inspected).not.toContain(Buffer.from(PASSWORD).toString('base64'));
  });

  it('docker secret create says why it refuses a taken name, a secret store driver and a template driver', async () => {
    const taken = await system.current.docker(['secret', 'create', 'db-password', file]);
    expect(taken.code).not.toBe(0);
    expect(taken.stderr).toMatch(/secret db-password already exists/);
    const driver = await system.current.docker(['secret', 'create', '--driver', 'vault', 'ext']);
    expect(driver.code).not.toBe(0);
    expect(driver.stderr).toMatch(/secret store drivers are not supported by Shoal/);
    const templated = await system.current.docker(['secret', 'create', '--template-driver', 'golang', 'tpl', file]);
    expect(templated.code).not.toBe(0);
    expect(templated.stderr).toMatch(/templated secrets are not supported by Shoal/);
  });

  it('docker service create --secret gives the service the secret as a file, and docker service inspect shows it', async () => {
    await docker('service', 'create', '--detach', '--name', 'db', '--secret', 'src=db-password,target=pw,mode=0400', 'busybox');
    const secrets = JSON.parse(await docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.ContainerSpec.Secrets}}', 'db'));
    expect(secrets).toEqual([{ File: { Name: 'pw', UID: '0', GID: '0', Mode: 0o400 }, SecretID: (await secretNamed('db-password'))!.id, SecretName: 'db-password' }]);
    const missing = await system.current.docker(['service', 'create', '--detach', '--name', 'api', '--secret', 'gone', 'busybox']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/secret not found: gone/);
  });

  it('docker secret rm is refused while a service uses the secret, and works once it is gone', async () => {
    const refused = await system.current.docker(['secret', 'rm', 'db-password']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/secret 'db-password' is in use by the following service: db/);
    expect(await docker('service', 'rm', 'db')).toBe('db\n');
    expect(await docker('secret', 'rm', 'db-password')).toBe('db-password\n');
    expect(await secretNamed('db-password')).toBeUndefined();
    expect((await docker('secret', 'ls', '--format', '{{.Name}}')).trim()).toBe('api-token');
  });

  it('docker stack deploy creates the secrets a stack declares (and deploys again over them); docker stack rm removes them', async () => {
    const dir = system.current.dataDir;
    const compose = join(dir, 'secret-stack.yml');
    writeFileSync(join(dir, 'token.txt'), 's3cr3t');
    writeFileSync(compose, 'services:\n  app:\n    image: busybox\n    secrets:\n      - source: token\n        target: app-token\nsecrets:\n  token:\n    file: ./token.txt\n');
    const deployed = await docker('stack', 'deploy', '--detach', '-c', compose, 'vault');
    expect(deployed).toMatch(/Creating secret vault_token/);
    const token = (await secretNamed('vault_token'))!;
    expect(token.spec.labels).toEqual({ 'com.docker.stack.namespace': 'vault' });
    expect(serviceNamed(await system.current.state(), 'vault_app').spec.task.container.secrets).toEqual([
      { secretId: token.id, secretName: 'vault_token', file: { name: 'app-token', uid: '0', gid: '0', mode: 0o444 } },
    ]);
    // A second deploy sends the secret again with its data: the same bytes, so only its labels are updated (as Docker).
    expect(await docker('stack', 'deploy', '--detach', '-c', compose, 'vault')).not.toMatch(/Creating secret/);
    expect(await secretNamed('vault_token')).toMatchObject({ id: token.id, version: 2 });
    const removed = await docker('stack', 'rm', 'vault');
    expect(removed).toMatch(/Removing secret vault_token/);
    expect(await secretNamed('vault_token')).toBeUndefined();
  });
};
