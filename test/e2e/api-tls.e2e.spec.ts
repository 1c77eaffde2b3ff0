/**
 * The API's TCP listener with TLS as Docker's daemon offers it: `shoal run api --tlsverify`
 * with certificates `shoal certs` issued, driven by the stock docker CLI (flags, and
 * DOCKER_TLS_VERIFY/DOCKER_CERT_PATH) with a client certificate whose OU is its role. A
 * client without a certificate, with another CA's or an expired one is refused at the
 * handshake; a role that may not is 403; with `--tls` alone a request without a token is 401.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { initCa, issueClient, loadCa } from '../../libs/runtime/src/pki/cluster-ca';
import { buildCertificate, newKeyPair, privateKeyPem } from '../../libs/runtime/src/pki/x509-builder';

interface Client {
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
}

const files = (dir: string, cert = 'cert.pem', key = 'key.pem'): Required<Client> => ({
  ca: readFileSync(join(dir, 'ca.pem')),
  cert: readFileSync(join(dir, cert)),
  key: readFileSync(join(dir, key)),
});

/** One HTTPS request; resolves with the status and body, or rejects with the TLS error. */
const https = (port: number, method: string, path: string, client: Client, token?: string, host = '127.0.0.1'): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    const req = request(
      { host, port, method, path, ...client, agent: false, headers: token ? { Authorization: `Bearer ${token}` } : {} },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });

/** A bare TLS handshake and one request line: what the server does with this client. */
const handshake = (port: number, client: Client): Promise<string> =>
  new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, ...client });
    let answer = '';
    const done = (outcome: string): void => {
      socket.destroy();
      resolve(outcome);
    };
    socket.on('secureConnect', () => socket.write('GET /_ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    socket.on('error', (error: NodeJS.ErrnoException) => done(`refused: ${error.code ?? error.message}`));
    socket.on('end', () => done(answer ? `answered: ${answer.split('\r\n')[0]}` : 'refused: closed'));
  });

const docker = (home: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const config = join(home, 'docker-config');
    mkdirSync(config, { recursive: true });
    writeFileSync(join(config, 'config.json'), '{}');
    execFile(
      'docker',
      [...args],
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, DOCKER_CONFIG: config, DOCKER_CLI_HINTS: 'false', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });

describe('the API over TLS, as dockerd offers it', () => {
  let shoal: ShoalProcesses;
  let api: ShoalProcess;
  let port: number;
  let certs: string;
  const dir = (name: string): string => join(certs, name);

  beforeAll(async () => {
    shoal = ShoalProcesses.embedded('api-tls');
    certs = join(shoal.dataDir, 'certs');
    // The CLI issues what an operator would: the CA, the API's certificate, an operator's and an auditor's.
    for (const args of [
      ['certs', 'ca', 'init', '--out', dir('ca')],
      ['certs', 'server', '--host', '127.0.0.1,localhost', '--host', '127.0.0.2', '--ca', dir('ca'), '--out', dir('server')],
      ['certs', 'issue', '--role', 'operator', '--cn', 'olga', '--ca', dir('ca'), '--out', dir('olga')],
      ['certs', 'issue', '--role', 'auditor', '--cn', 'alice', '--ca', dir('ca'), '--out', dir('alice')],
    ]) {
      const ran = await runShoalCli(args, shoal.env);
      if (ran.code !== 0) throw new Error(`shoal ${args.join(' ')}: ${ran.stderr}`);
      expect(ran.stdout).not.toMatch(/PRIVATE KEY/);
    }
    api = shoal.cli(
      ['run', 'api', '--tlsverify', '--tlscacert', join(dir('server'), 'ca.pem'), '--tlscert', join(dir('server'), 'server-cert.pem'), '--tlskey', join(dir('server'), 'server-key.pem')],
      { SHOAL_API_PORT: '0' },
    );
    port = Number((await api.waitFor(/listening on https:\/\/127\.0\.0\.1:(\d+) \(client certificates verified\)/))[1]);
  });
  afterAll(() => shoal.close());

  it('serves the stock docker CLI with --tlsverify and an operator certificate', async () => {
    const flags = ['--tlsverify', '--tlscacert', join(dir('olga'), 'ca.pem'), '--tlscert', join(dir('olga'), 'cert.pem'), '--tlskey', join(dir('olga'), 'key.pem'), '-H', `tcp://127.0.0.1:${port}`];
    const init = await docker(dir('olga'), [...flags, 'swarm', 'init']);
    expect(init).toMatchObject({ code: 0 });
    const ls = await docker(dir('olga'), [...flags, 'node', 'ls']);
    expect(ls).toMatchObject({ code: 0, stderr: '', stdout: expect.stringMatching(/^ID\s+HOSTNAME\s+STATUS\s+AVAILABILITY/) });
    const info = await docker(dir('olga'), [...flags, 'info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}']);
    expect(info).toMatchObject({ code: 0, stdout: 'active true\n' });
    const created = await docker(dir('olga'), [...flags, 'service', 'create', '--detach', '--name', 'web', '--replicas', '2', 'nginx']);
    expect(created).toMatchObject({ code: 0 });
    // The unix socket stays as it was: plain HTTP, its file mode the access control.
    const overSocket = await dockerApi<{ Spec: { Name: string } }[]>(join(shoal.dataDir, 'shoal.sock'), 'GET', '/services');
    expect(overSocket.body.map((service) => service.Spec.Name)).toEqual(['web']);
  });

  it('serves DOCKER_TLS_VERIFY=1 DOCKER_CERT_PATH=… as the docker CLI reads them; an auditor reads but may not write (403)', async () => {
    const env = { DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: dir('alice'), DOCKER_HOST: `tcp://127.0.0.1:${port}` };
    const ls = await docker(dir('alice'), ['service', 'ls', '--format', '{{.Name}} {{.Replicas}}'], env);
    expect(ls).toMatchObject({ code: 0, stdout: expect.stringMatching(/^web /) });
    const write = await docker(dir('alice'), ['service', 'rm', 'web'], env);
    expect(write.code).not.toBe(0);
    expect(write.stderr).toMatch(/forbidden: role auditor may not DELETE \/services\/web/);
    const verified = await https(port, 'GET', '/shoal/v1/audit/verify', files(dir('alice')));
    expect(verified.status).toBe(200);
  });

  it('answers 403 to a certificate whose role may not use the API', async () => {
    const ca = loadCa(dir('ca'));
    const keys = newKeyPair();
    const worker = buildCertificate({
      kind: 'client',
      subject: { commonName: 'node-7', organization: 'shoal', organizationalUnit: 'worker' },
      publicKey: keys.publicKey,
      issuer: ca.certificate,
      signingKey: ca.key,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 3_600_000),
    });
    const answer = await https(port, 'GET', '/nodes', { ca: Buffer.from(ca.pem), cert: Buffer.from(worker.toString()), key: Buffer.from(privateKeyPem(keys.privateKey)) });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatch(/client certificate of role \\"worker\\" may not use the API/);
  });

  it('refuses the handshake without a client certificate, with another CA\'s, or with an expired one', async () => {
    const ca = readFileSync(dir('ca/ca.pem'));
    expect(await handshake(port, files(dir('olga')))).toBe('answered: HTTP/1.1 200 OK');
    expect(await handshake(port, { ca })).toMatch(/^refused: /);

    initCa({ out: dir('other-ca') });
    issueClient({ ca: dir('other-ca'), out: dir('mallory'), role: 'operator', commonName: 'mallory' });
    expect(await handshake(port, { ...files(dir('mallory')), ca })).toMatch(/^refused: /);

    issueClient({ ca: dir('ca'), out: dir('expired'), role: 'operator', commonName: 'old', notBefore: new Date(Date.now() - 3 * 86_400_000), notAfter: new Date(Date.now() - 86_400_000) });
    expect(await handshake(port, files(dir('expired')))).toMatch(/^refused: /);

    // And the stock CLI, with no certificate of its own, gets no answer either.
    const bare = await docker(dir('alice'), ['--tls', '--tlscacert', join(dir('alice'), 'ca.pem'), '-H', `tcp://127.0.0.1:${port}`, 'node', 'ls']);
    expect(bare.code).not.toBe(0);
    expect(bare.stderr).toMatch(/certificate|tls|remote error/i);
  });

  it('with --tls alone (SHOAL_API_TLS=1) on the address SHOAL_API_HOST names, answers 401 to no credentials and serves a bearer token', async () => {
    const plain = ShoalProcesses.embedded('api-tls-token', {
      SHOAL_API_PORT: '0',
      SHOAL_API_HOST: '127.0.0.2',
      SHOAL_API_TLS: '1',
      SHOAL_API_TLSCERT: join(dir('server'), 'server-cert.pem'),
      SHOAL_API_TLSKEY: join(dir('server'), 'server-key.pem'),
    });
    try {
      const process = plain.cli(['run', 'api']);
      const tlsPort = Number((await process.waitFor(/listening on https:\/\/127\.0\.0\.2:(\d+) \(token/))[1]);
      const ca = readFileSync(dir('ca/ca.pem'));
      const none = await https(tlsPort, 'GET', '/nodes', { ca }, undefined, '127.0.0.2');
      expect(none.status).toBe(401);
      const token = readFileSync(join(plain.dataDir, 'admin.token'), 'utf8').trim();
      expect((await https(tlsPort, 'GET', '/_ping', { ca }, token, '127.0.0.2')).status).toBe(200);
      // Bound to 127.0.0.2 alone: nothing answers on 127.0.0.1 at that port.
      await expect(https(tlsPort, 'GET', '/_ping', { ca }, token)).rejects.toThrow(/ECONNREFUSED/);
      expect(process.output).not.toContain(token);
    } finally {
      await plain.close();
    }
  });

  it('keeps private keys out of every line the processes wrote', () => {
    for (const name of ['ca/ca-key.pem', 'server/server-key.pem', 'olga/key.pem']) {
      const body = readFileSync(dir(name), 'utf8').split('\n').filter((line) => line && !line.startsWith('-----'));
      for (const line of body) expect(api.output).not.toContain(line);
    }
    expect(api.output).not.toMatch(/PRIVATE KEY/);
  });
});
