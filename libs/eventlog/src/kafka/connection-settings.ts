/**
 * How a process reaches a Kafka that requires TLS and authentication: SSL (the CA that
 * signed the brokers' certificates, and this process's own certificate and key when the
 * brokers require client certificates) and SASL (SCRAM-SHA-512, SCRAM-SHA-256 or PLAIN).
 *
 *   SHOAL_KAFKA_SSL                 1: TLS to the brokers (implied by any SSL_* file below); system CAs unless SSL_CA
 *   SHOAL_KAFKA_SSL_CA              PEM file: the CA(s) the brokers' certificates chain to
 *   SHOAL_KAFKA_SSL_CERT            PEM file: this process's client certificate (ssl.client.auth=required)
 *   SHOAL_KAFKA_SSL_KEY             PEM file: its private key
 *   SHOAL_KAFKA_SASL_MECHANISM      scram-sha-512 | scram-sha-256 | plain
 *   SHOAL_KAFKA_SASL_USERNAME       the SASL user
 *   SHOAL_KAFKA_SASL_PASSWORD       its password, or
 *   SHOAL_KAFKA_SASL_PASSWORD_FILE  a file holding it (trailing newline dropped): keeps it out of the environment
 *
 * Each is declared, with the rules between them (a certificate needs its key, a mechanism
 * its user and exactly one password), in @shoal/config. Files are read when the log opens.
 * No value read here is ever written to a log line: `describeKafkaConnection` names only
 * the mechanism, the user and the file paths.
 */
import { existsSync, readFileSync } from 'node:fs';
import { shoalSettings } from '@shoal/config';
import type { SaslMechanism } from '@shoal/config';
import type { KafkaConfig, SASLOptions } from 'kafkajs';

export interface KafkaSslSettings {
  readonly ca?: string;
  readonly cert?: string;
  readonly key?: string;
}

export interface KafkaSaslSettings {
  readonly mechanism: SaslMechanism;
  readonly username: string;
  /** The password itself, or where to read it. */
  readonly password: { readonly value: string } | { readonly file: string };
}

/** What the environment asks for: nothing (PLAINTEXT), SSL, SASL, or both (SASL_SSL). */
export interface KafkaConnectionSettings {
  readonly ssl?: KafkaSslSettings;
  readonly sasl?: KafkaSaslSettings;
}

/** The settings from the environment; a clear error names the variable to fix. */
export const kafkaConnectionFromEnv = (env: NodeJS.ProcessEnv): KafkaConnectionSettings => {
  const settings = shoalSettings(env);
  const { SHOAL_KAFKA_SSL_CA: ca, SHOAL_KAFKA_SSL_CERT: cert, SHOAL_KAFKA_SSL_KEY: key } = settings;
  const ssl = settings.SHOAL_KAFKA_SSL || ca || cert ? { ...(ca ? { ca } : {}), ...(cert ? { cert, key } : {}) } : undefined;
  const { SHOAL_KAFKA_SASL_MECHANISM: mechanism, SHOAL_KAFKA_SASL_USERNAME: username, SHOAL_KAFKA_SASL_PASSWORD: password, SHOAL_KAFKA_SASL_PASSWORD_FILE: passwordFile } = settings;
  if (!mechanism || !username) return ssl ? { ssl } : {};
  // A password is taken as it is (spaces included); only the file's trailing newline goes.
  const sasl: KafkaSaslSettings = { mechanism, username, password: passwordFile ? { file: passwordFile } : { value: password ?? '' } };
  return { ...(ssl ? { ssl } : {}), sasl };
};

const readFile = (variable: string, path: string): string => {
  if (!existsSync(path)) throw new Error(`${variable}: ${path} not found`);
  return readFileSync(path, 'utf8');
};

/** kafkajs's `ssl` and `sasl` for these settings, files read now. */
export const kafkajsConnection = (settings: KafkaConnectionSettings): Pick<KafkaConfig, 'ssl' | 'sasl'> => {
  const out: { ssl?: KafkaConfig['ssl']; sasl?: SASLOptions } = {};
  if (settings.ssl) {
    const { ca, cert, key } = settings.ssl;
    out.ssl =
      ca || cert
        ? {
            rejectUnauthorized: true,
            ...(ca ? { ca: [readFile('SHOAL_KAFKA_SSL_CA', ca)] } : {}),
            ...(cert && key ? { cert: readFile('SHOAL_KAFKA_SSL_CERT', cert), key: readFile('SHOAL_KAFKA_SSL_KEY', key) } : {}),
          }
        : true;
  }
  if (settings.sasl) {
    const { mechanism, username, password } = settings.sasl;
    const secret = 'value' in password ? password.value : readFile('SHOAL_KAFKA_SASL_PASSWORD_FILE', password.file).replace(/\r?\n$/, '');
    if (!secret) throw new Error(`SHOAL_KAFKA_SASL_PASSWORD_FILE: ${'file' in password ? password.file : ''} is empty`);
    out.sasl = { mechanism, username, password: secret } as SASLOptions;
  }
  return out;
};

/** For log lines and descriptions: the protocol, mechanism and user, never a password or a key. */
export const describeKafkaConnection = (settings: KafkaConnectionSettings): string => {
  const protocol = settings.ssl ? (settings.sasl ? 'SASL_SSL' : 'SSL') : settings.sasl ? 'SASL_PLAINTEXT' : 'PLAINTEXT';
  return settings.sasl ? `${protocol} ${settings.sasl.mechanism.toUpperCase()} as ${settings.sasl.username}` : protocol;
};
