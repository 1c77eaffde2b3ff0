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
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCertificate, newKeyPair, privateKeyPem } from '../../libs/runtime/src/pki/x509-builder';
import { freePorts, kafkaLib, LocalKafkaBroker, randomClusterId } from './broker';

export interface KafkaUser {
  readonly username: string;
  readonly password: string;
}

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

/** A client's TLS files: the CA to trust, its certificate and key (0600). */
export interface ClientTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

const HOUR_MS = 60 * 60 * 1000;
const LISTENER = 'SASL_SSL';
const USER_NAME = /^[A-Za-z0-9._-]+$/;

const writeSecret = (path: string, text: string): string => {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
  return path;
};

/** A JAAS value in double quotes (PLAIN's user_<name>="<password>"). */
const quoted = (text: string): string => {
  if (/["\\\n]/.test(text)) throw new Error('a PLAIN password for the test broker may not hold a quote, a backslash or a newline');
  return `"${text}"`;
};

export class SecureKafkaBroker {
  private constructor(
    readonly broker: LocalKafkaBroker,
    /** SASL_SSL://<host>:<port>. */
    readonly secureBrokers: readonly string[],
    readonly tlsDir: string,
    private readonly ca: { readonly certificate: ReturnType<typeof buildCertificate>; readonly key: ReturnType<typeof newKeyPair>['privateKey'] },
    private readonly dir: string,
  ) {}

  get plaintextBrokers(): readonly string[] {
    return this.broker.brokers;
  }

  /** The CA clients must trust: `<tlsDir>/ca.pem`. */
  get caFile(): string {
    return join(this.tlsDir, 'ca.pem');
  }

  static async start(options: SecureBrokerOptions = {}): Promise<SecureKafkaBroker> {
    const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'shoal-secure-kafka-'));
    const host = options.host ?? '127.0.0.1';
    const tlsDir = join(dir, 'tls');
    mkdirSync(tlsDir, { recursive: true, mode: 0o700 });
    const now = Date.now();
    const caKeys = newKeyPair();
    const caCertificate = buildCertificate({
      kind: 'ca',
      subject: { commonName: 'Shoal test Kafka CA' },
      publicKey: caKeys.publicKey,
      signingKey: caKeys.privateKey,
      notBefore: new Date(now - HOUR_MS),
      notAfter: new Date(now + 24 * HOUR_MS),
    });
    writeFileSync(join(tlsDir, 'ca.pem'), caCertificate.toString());
    const brokerKeys = newKeyPair();
    const brokerCertificate = buildCertificate({
      kind: 'server',
      subject: { commonName: 'kafka' },
      publicKey: brokerKeys.publicKey,
      issuer: caCertificate,
      signingKey: caKeys.privateKey,
      hosts: [...new Set([host, '127.0.0.1', 'localhost'])],
      notBefore: new Date(now - HOUR_MS),
      notAfter: new Date(now + 24 * HOUR_MS),
    });
    // A PEM keystore is the key (PKCS#8) followed by the certificate chain, in one file.
    const keystore = writeSecret(join(tlsDir, 'broker-keystore.pem'), `${privateKeyPem(brokerKeys.privateKey)}${brokerCertificate.toString()}`);
    const [port, plainPort, controllerPort] = (await freePorts(3)) as [number, number, number];
    const plain = options.plainUsers ?? [];
    for (const user of [...plain, ...(options.scramUsers ?? [])]) {
      if (!USER_NAME.test(user.username)) throw new Error(`test broker user "${user.username}": letters, digits, dot, dash and underscore only`);
    }
    const prefix = `listener.name.${LISTENER.toLowerCase()}`;
    const properties = [
      `listeners=PLAINTEXT://${host}:${plainPort},CONTROLLER://${host}:${controllerPort},${LISTENER}://${host}:${port}`,
      `advertised.listeners=PLAINTEXT://${host}:${plainPort},${LISTENER}://${host}:${port}`,
      `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,${LISTENER}:SASL_SSL`,
      'sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN',
      `${prefix}.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
      `${prefix}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${plain.map((user) => `user_${user.username}=${quoted(user.password)}`).join(' ')};`,
      `${prefix}.ssl.keystore.type=PEM`,
      `${prefix}.ssl.keystore.location=${keystore}`,
      `${prefix}.ssl.truststore.type=PEM`,
      `${prefix}.ssl.truststore.location=${join(tlsDir, 'ca.pem')}`,
      `${prefix}.ssl.client.auth=required`,
    ];
    const node = options.netns || options.host ? { id: 1, voters: `1@${host}:${controllerPort}`, clusterId: randomClusterId(), brokers: 1, host, ...(options.netns ? { netns: options.netns } : {}) } : undefined;
    const broker = await LocalKafkaBroker.start({ dataDir: join(dir, 'broker'), serverProperties: properties, ports: { broker: plainPort, controller: controllerPort }, ...(node ? { node } : {}) });
    const secure = new SecureKafkaBroker(broker, [`${host}:${port}`], tlsDir, { certificate: caCertificate, key: caKeys.privateKey }, dir);
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
    if (/[,[\]=]/.test(user.password)) throw new Error('a SCRAM password for the test broker may not hold , [ ] or =');
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
    const out = join(this.tlsDir, name);
    mkdirSync(out, { recursive: true, mode: 0o700 });
    const keys = newKeyPair();
    const certificate = buildCertificate({
      kind: 'client',
      subject: { commonName: name },
      publicKey: keys.publicKey,
      issuer: this.ca.certificate,
      signingKey: this.ca.key,
      notBefore: new Date(Date.now() - HOUR_MS),
      notAfter: new Date(Date.now() + 24 * HOUR_MS),
    });
    writeFileSync(join(out, 'cert.pem'), certificate.toString());
    return { ca: this.caFile, cert: join(out, 'cert.pem'), key: writeSecret(join(out, 'key.pem'), privateKeyPem(keys.privateKey)) };
  }

  async stop(): Promise<void> {
    await this.broker.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
