/**
 * A SASL_SSL listener for a test broker, beside its PLAINTEXT one: a CA of its own, the
 * broker's certificate for the listener's host, PEM keystore and truststore (Kafka 2.7+, no
 * JKS), mutual TLS (ssl.client.auth=required), SCRAM-SHA-512 and PLAIN. The same listener
 * serves a local JVM broker (SecureKafkaBroker) and the test run's broker container
 * (kafka-container.ts), which reads the files at another path.
 */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCertificate, newKeyPair, privateKeyPem } from '../../libs/runtime/src/pki/x509-builder';

export interface KafkaUser {
  readonly username: string;
  readonly password: string;
}

/** A client's TLS files: the CA to trust, its certificate and key (0600). */
export interface ClientTls {
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

export const SASL_SSL = 'SASL_SSL';
const HOUR_MS = 60 * 60 * 1000;
const USER_NAME = /^[A-Za-z0-9._-]+$/;

/** The files the broker reads: the CA (truststore) and its keystore (key, then certificate). */
export const CA_FILE = 'ca.pem';
export const KEYSTORE_FILE = 'broker-keystore.pem';

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

export const checkUserName = (user: KafkaUser): void => {
  if (!USER_NAME.test(user.username)) throw new Error(`test broker user "${user.username}": letters, digits, dot, dash and underscore only`);
};

/** A SCRAM credential as kafka-configs and kafka-storage take it; the password may not hold , [ ] or =. */
export const scramCredential = (user: KafkaUser): string => {
  checkUserName(user);
  if (/[,[\]=]/.test(user.password)) throw new Error('a SCRAM password for the test broker may not hold , [ ] or =');
  return `SCRAM-SHA-512=[name=${user.username},iterations=4096,password=${user.password}]`;
};

export class SaslSslListener {
  private constructor(
    /** The listener's host:port, as clients dial it. */
    readonly address: string,
    /** Where the CA and the keystore are written (and client certificates issued). */
    readonly tlsDir: string,
    private readonly ca: { readonly certificate: ReturnType<typeof buildCertificate>; readonly key: ReturnType<typeof newKeyPair>['privateKey'] },
    private readonly plainUsers: readonly KafkaUser[],
  ) {}

  /** A CA and the broker's certificate for `host` (and loopback), written to `tlsDir`. */
  static make(options: { readonly host: string; readonly port: number; readonly tlsDir: string; readonly plainUsers?: readonly KafkaUser[] }): SaslSslListener {
    mkdirSync(options.tlsDir, { recursive: true, mode: 0o700 });
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
    writeFileSync(join(options.tlsDir, CA_FILE), caCertificate.toString());
    const brokerKeys = newKeyPair();
    const brokerCertificate = buildCertificate({
      kind: 'server',
      subject: { commonName: 'kafka' },
      publicKey: brokerKeys.publicKey,
      issuer: caCertificate,
      signingKey: caKeys.privateKey,
      hosts: [...new Set([options.host, '127.0.0.1', 'localhost'])],
      notBefore: new Date(now - HOUR_MS),
      notAfter: new Date(now + 24 * HOUR_MS),
    });
    // A PEM keystore is the key (PKCS#8) followed by the certificate chain, in one file.
    writeSecret(join(options.tlsDir, KEYSTORE_FILE), `${privateKeyPem(brokerKeys.privateKey)}${brokerCertificate.toString()}`);
    const plainUsers = options.plainUsers ?? [];
    plainUsers.forEach(checkUserName);
    return new SaslSslListener(`${options.host}:${options.port}`, options.tlsDir, { certificate: caCertificate, key: caKeys.privateKey }, plainUsers);
  }

  /** The CA clients must trust: `<tlsDir>/ca.pem`. */
  get caFile(): string {
    return join(this.tlsDir, CA_FILE);
  }

  /**
   * The listener's settings, with the broker reading its files from `filesAt` (the TLS
   * directory as the broker sees it); `listeners` and `advertised.listeners` are the caller's.
   */
  properties(filesAt: string = this.tlsDir): string[] {
    const prefix = `listener.name.${SASL_SSL.toLowerCase()}`;
    return [
      'sasl.enabled.mechanisms=SCRAM-SHA-512,PLAIN',
      `${prefix}.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;`,
      `${prefix}.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required ${this.plainUsers.map((user) => `user_${user.username}=${quoted(user.password)}`).join(' ')};`,
      `${prefix}.ssl.keystore.type=PEM`,
      `${prefix}.ssl.keystore.location=${filesAt}/${KEYSTORE_FILE}`,
      `${prefix}.ssl.truststore.type=PEM`,
      `${prefix}.ssl.truststore.location=${filesAt}/${CA_FILE}`,
      `${prefix}.ssl.client.auth=required`,
    ];
  }

  /** A client certificate from the listener's CA, in `<tlsDir>/<name>/`. */
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

  /**
   * What a Shoal process needs in its environment to reach the broker only through this
   * listener, as `scram` (a SCRAM-SHA-512 user the broker has): its address, a client
   * certificate, and the password in a file (0600).
   */
  processEnv(scram: KafkaUser): Record<string, string> {
    const client = this.issueClient(scram.username);
    const passwordFile = writeSecret(join(this.tlsDir, `${scram.username}-password`), `${scram.password}\n`);
    return {
      KAFKA_BROKERS: this.address,
      SHOAL_KAFKA_SSL_CA: client.ca,
      SHOAL_KAFKA_SSL_CERT: client.cert,
      SHOAL_KAFKA_SSL_KEY: client.key,
      SHOAL_KAFKA_SASL_MECHANISM: 'scram-sha-512',
      SHOAL_KAFKA_SASL_USERNAME: scram.username,
      SHOAL_KAFKA_SASL_PASSWORD_FILE: passwordFile,
    };
  }
}
