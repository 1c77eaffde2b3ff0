/**
 * Shoal on a Kafka that requires TLS and authentication: a broker of the test's own with a
 * SASL_SSL listener (mutual TLS, SCRAM-SHA-512 and PLAIN; infra/kafka/secure-broker.ts), the
 * all-in-one process and the CLI in processes of their own reaching it only through
 * SHOAL_KAFKA_SSL_* and SHOAL_KAFKA_SASL_*. A service converges on the log there, the audit
 * in another process agrees, a wrong password is refused, and no password or private key
 * appears in anything the processes printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SecureKafkaBroker } from '../../infra/kafka/secure-broker';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import type { Ran } from '../../libs/testing/src/processes/spawn-shoal';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { eventually } from '../../libs/testing/src/eventually';

const SCRAM_PASSWORD = 'scram-9f6c1e0b7d2a4c58';
const PLAIN_PASSWORD = 'plain-3b8e5d1f0a7c6e24';

interface DockerTask {
  readonly DesiredState: string;
  readonly Status: { readonly State: string };
}

describe('Shoal on Kafka with SASL_SSL', () => {
  let broker: SecureKafkaBroker;
  let deployment: ShoalProcesses;
  const outputs: string[] = [];
  const ran = (result: Ran): Ran => {
    outputs.push(result.stdout, result.stderr);
    return result;
  };

  beforeAll(async () => {
    broker = await SecureKafkaBroker.start({ scramUsers: [{ username: 'shoal', password: SCRAM_PASSWORD }], plainUsers: [{ username: 'auditor', password: PLAIN_PASSWORD }] });
    const client = broker.issueClient('shoal');
    const passwordFile = join(broker.tlsDir, 'shoal-password');
    writeFileSync(passwordFile, `${SCRAM_PASSWORD}\n`, { mode: 0o600 });
    deployment = ShoalProcesses.onKafka('sasl-ssl', {
      KAFKA_BROKERS: broker.secureBrokers.join(','),
      SHOAL_API_PORT: '0',
      SHOAL_DISPATCHER_PORT: '0',
      SHOAL_KAFKA_SSL_CA: client.ca,
      SHOAL_KAFKA_SSL_CERT: client.cert,
      SHOAL_KAFKA_SSL_KEY: client.key,
      SHOAL_KAFKA_SASL_MECHANISM: 'scram-sha-512',
      SHOAL_KAFKA_SASL_USERNAME: 'shoal',
      SHOAL_KAFKA_SASL_PASSWORD_FILE: passwordFile,
    });
  }, 300_000);
  afterAll(async () => {
    await deployment?.close();
    await broker?.stop();
  });

  it('runs the all-in-one on the SASL_SSL listener (client certificate, SCRAM-SHA-512), a service converges, and the audit agrees', async () => {
    const shoal = deployment.start();
    await shoal.waitFor(/Ctrl-C stops it/, 120_000);
    expect(shoal.output).toMatch(new RegExp(`log\\s+Kafka ${broker.secureBrokers[0]}`));
    const socket = join(deployment.dataDir, 'shoal.sock');
    const created = await dockerApi<{ ID: string }>(socket, 'POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
      Mode: { Replicated: { Replicas: 2 } },
    });
    expect(created.status).toBe(201);
    await eventually('two tasks of web run', async () => {
      const { body } = await dockerApi<DockerTask[]>(socket, 'GET', `/v1.47/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'] }))}`);
      return body.filter((task) => task.DesiredState === 'running' && task.Status.State === 'running').length === 2 || undefined;
    }, 90_000);
    expect(await shoal.stop()).toBe(0);
    outputs.push(shoal.output);

    // The CLI in its own process, on the same listener: SCRAM from the password file …
    const verify = ran(await runShoalCli(['audit', 'verify', '--json', '--snapshots', join(deployment.dataDir, 'snapshots')], deployment.env, 180_000));
    expect(verify.stderr).toBe('');
    const report = JSON.parse(verify.stdout) as { agree: boolean; hash: string; highWaterMark: number };
    expect(report.agree).toBe(true);
    expect(report.highWaterMark).toBeGreaterThan(2);

    // … and PLAIN with the password in the environment, the same state.
    const plain = ran(
      await runShoalCli(['audit', 'replay', '--json'], {
        ...deployment.env,
        SHOAL_KAFKA_SASL_MECHANISM: 'plain',
        SHOAL_KAFKA_SASL_USERNAME: 'auditor',
        SHOAL_KAFKA_SASL_PASSWORD_FILE: '',
        SHOAL_KAFKA_SASL_PASSWORD: PLAIN_PASSWORD,
      }, 180_000),
    );
    expect(plain.code).toBe(0);
    expect((JSON.parse(plain.stdout) as { hash: string }).hash).toBe(report.hash);
  });

  it('refuses a wrong password, saying so, without printing it', async () => {
    const wrong = ran(
      await runShoalCli(['audit', 'replay', '--json'], { ...deployment.env, SHOAL_KAFKA_SASL_PASSWORD_FILE: '', SHOAL_KAFKA_SASL_PASSWORD: 'not-the-password-7e1d' }, 180_000),
    );
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toMatch(/authentication failed/i);
    expect(`${wrong.stdout}${wrong.stderr}`).not.toContain('not-the-password-7e1d');
  });

  it('printed no password and no private key in any line', () => {
    const printed = outputs.join('\n');
    expect(printed.length).toBeGreaterThan(0);
    for (const secret of [SCRAM_PASSWORD, PLAIN_PASSWORD]) expect(printed).not.toContain(secret);
    expect(printed).not.toMatch(/PRIVATE KEY/);
    const key = readFileSync(join(broker.tlsDir, 'shoal', 'key.pem'), 'utf8').split('\n').filter((line) => line && !line.startsWith('-----'));
    for (const line of key) expect(printed).not.toContain(line);
  });
});
