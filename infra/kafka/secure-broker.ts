/**
 * A local broker with a SASL_SSL listener beside its PLAINTEXT one, for testing Shoal
 * against a Kafka that requires TLS and authentication:
 *
 * - a CA of the broker's own (in `<dir>/tls`), the broker's certificate for 127.0.0.1, and
 *   client certificates it issues on request (ssl.client.auth=required: TLS is mutual);
 * - PEM keystore and truststore (ssl.keystore.type=PEM, Kafka 2.7+), no JKS or keytool step;
 * - SCRAM-SHA-512 users created with kafka-configs (ConfigCommand over the PLAINTEXT
 *   listener) and PLAIN users in the listener's JAAS line;
 * - `secureBrokers` is the SASL_SSL address; the PLAINTEXT one (`plaintextBrokers`) stays
 *   for the readiness probe and for a test's own administration.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, kafkaLib, LocalKafkaBroker, randomClusterId } from './broker';
import { SASL_SSL, SaslSslListener, scramCredential } from './sasl-ssl-listener';
import type { ClientTls, KafkaUser } from './sasl-ssl-listener';

export type { ClientTls, KafkaUser };

export interface SecureBrokerOptions {
  /** SCRAM-SHA-512 users, created once the broker is up. */
  readonly scramUsers?: readonly KafkaUser[];
  /** PLAIN users, known to the listener from its start. */
  readonly plainUsers?: readonly KafkaUser[];
  /** Where the broker's data and the TLS files go; a fresh folder under os.tmpdir() by default (removed by stop()). */
  readonly dir?: string;
  /** The address every listener binds and advertises (default 127.0.0.1): one of a network namespace's, with `netns`. */
  readonly host?: string;
  /** The network namespace the JVM runs in (`ip netns exec`), one the caller made with `host` in it. */
  readonly netns?: string;
}

export class SecureKafkaBroker {
  private constructor(
    readonly broker: LocalKafkaBroker,
    private readonly listener: SaslSslListener,
    private readonly dir: string,
  ) {}

  /** SASL_SSL://<host>:<port>. */
  get secureBrokers(): readonly string[] {
    return [this.listener.address];
  }

  get tlsDir(): string {
    return this.listener.tlsDir;
  }

  get plaintextBrokers(): readonly string[] {
    return this.broker.brokers;
  }

  /** The CA clients must trust: `<tlsDir>/ca.pem`. */
  get caFile(): string {
    return this.listener.caFile;
  }

  static async start(options: SecureBrokerOptions = {}): Promise<SecureKafkaBroker> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'shoal-secure-kafka-'));
    const host = options.host ?? '127.0.0.1';
    const [port, plainPort, controllerPort] = (await freePorts(3)) as [number, number, number];
    (options.scramUsers ?? []).forEach(scramCredential);
    const listener = SaslSslListener.make({ host, port, tlsDir: join(dir, 'tls'), ...(options.plainUsers ? { plainUsers: options.plainUsers } : {}) });
    const properties = [
      `listeners=PLAINTEXT://${host}:${plainPort},CONTROLLER://${host}:${controllerPort},${SASL_SSL}://${host}:${port}`,
      `advertised.listeners=PLAINTEXT://${host}:${plainPort},${SASL_SSL}://${host}:${port}`,
      `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,${SASL_SSL}:SASL_SSL`,
      ...listener.properties(),
    ];
    const node = options.netns || options.host ? { id: 1, voters: `1@${host}:${controllerPort}`, clusterId: randomClusterId(), brokers: 1, host, ...(options.netns ? { netns: options.netns } : {}) } : undefined;
    const broker = await LocalKafkaBroker.start({ dataDir: join(dir, 'broker'), serverProperties: properties, ports: { broker: plainPort, controller: controllerPort }, ...(node ? { node } : {}) });
    const secure = new SecureKafkaBroker(broker, listener, dir);
    try {
      for (const user of options.scramUsers ?? []) secure.addScramUser(user);
    } catch (error) {
      await secure.stop();
      throw error;
    }
    return secure;
  }

  /**
   * A SCRAM-SHA-512 user, through kafka-configs on the PLAINTEXT listener. The password is on
   * that command's line (its --add-config-file does not take SCRAM credentials in 3.9): fine
   * for a test broker's test users, not how an operator should do it (docs/deploy.md).
   */
  addScramUser(user: KafkaUser): void {
    scramCredential(user);
    const ran = spawnSync(
      'java',
      [
        '-cp',
        `${kafkaLib()}/*`,
        'kafka.admin.ConfigCommand',
        '--bootstrap-server',
        this.plaintextBrokers[0]!,
        '--alter',
        '--entity-type',
        'users',
        '--entity-name',
        user.username,
        '--add-config',
        `SCRAM-SHA-512=[iterations=4096,password=${user.password}]`,
      ],
      { encoding: 'utf8', timeout: 120_000, env: process.env },
    );
    if (ran.status !== 0) throw new Error(`kafka-configs could not add the SCRAM user ${user.username} (exit ${String(ran.status)}): ${ran.stderr.split('\n').filter((line) => !line.startsWith('log4j:')).join('\n')}`);
  }

  /** A client certificate from the broker's CA, in `<tlsDir>/<name>/`. */
  issueClient(name: string): ClientTls {
    return this.listener.issueClient(name);
  }

  /** A Shoal process's environment to reach the broker only through SASL_SSL, as the SCRAM user `scram` (SaslSslListener.processEnv). */
  processEnv(scram: KafkaUser): Record<string, string> {
    return this.listener.processEnv(scram);
  }

  async stop(): Promise<void> {
    await this.broker.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
