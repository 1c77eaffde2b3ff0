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
 * Files are read when the log opens. No value read here is ever written to a log line:
 * `describeKafkaConnection` names only the mechanism, the user and the file paths.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { KafkaConfig, SASLOptions } from 'kafkajs';

export type SaslMechanism = 'scram-sha-512' | 'scram-sha-256' | 'plain';
export const SASL_MECHANISMS: readonly SaslMechanism[] = ['scram-sha-512', 'scram-sha-256', 'plain'];

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

const TRUE = new Set(['1', 'true', 'yes', 'on']);
const FALSE = new Set(['', '0', 'false', 'no', 'off']);
const value = (env: NodeJS.ProcessEnv, name: string): string => env[name]?.trim() ?? '';

/** The settings from the environment; a clear error names the variable to fix. */
export const kafkaConnectionFromEnv = (env: NodeJS.ProcessEnv): KafkaConnectionSettings => {
  const sslFlag = value(env, 'SHOAL_KAFKA_SSL').toLowerCase();
  if (!TRUE.has(sslFlag) && !FALSE.has(sslFlag)) throw new Error(`SHOAL_KAFKA_SSL must be 1 or 0, not "${env.SHOAL_KAFKA_SSL}"`);
  const ca = value(env, 'SHOAL_KAFKA_SSL_CA');
  const cert = value(env, 'SHOAL_KAFKA_SSL_CERT');
  const key = value(env, 'SHOAL_KAFKA_SSL_KEY');
  if (Boolean(cert) !== Boolean(key)) throw new Error('SHOAL_KAFKA_SSL_CERT and SHOAL_KAFKA_SSL_KEY go together: a client certificate needs its key (or set neither)');
  const ssl = TRUE.has(sslFlag) || ca || cert ? { ...(ca ? { ca } : {}), ...(cert ? { cert, key } : {}) } : undefined;

  const mechanism = value(env, 'SHOAL_KAFKA_SASL_MECHANISM').toLowerCase();
  const username = value(env, 'SHOAL_KAFKA_SASL_USERNAME');
  // A password is taken as it is (spaces included); only the file's trailing newline goes.
  const password = env.SHOAL_KAFKA_SASL_PASSWORD ?? '';
  const passwordFile = value(env, 'SHOAL_KAFKA_SASL_PASSWORD_FILE');
  if (!mechanism) {
    if (username || password || passwordFile) throw new Error(`SHOAL_KAFKA_SASL_MECHANISM must be set (${SASL_MECHANISMS.join(', ')}) for SHOAL_KAFKA_SASL_USERNAME and its password to be used`);
    return ssl ? { ssl } : {};
  }
  if (!(SASL_MECHANISMS as readonly string[]).includes(mechanism)) {
    throw new Error(`SHOAL_KAFKA_SASL_MECHANISM must be one of ${SASL_MECHANISMS.join(', ')}, not "${env.SHOAL_KAFKA_SASL_MECHANISM}"`);
  }
  if (!username) throw new Error(`SHOAL_KAFKA_SASL_MECHANISM=${mechanism} needs SHOAL_KAFKA_SASL_USERNAME`);
  if (password && passwordFile) throw new Error('set SHOAL_KAFKA_SASL_PASSWORD or SHOAL_KAFKA_SASL_PASSWORD_FILE, not both');
  if (!password && !passwordFile) throw new Error(`SHOAL_KAFKA_SASL_MECHANISM=${mechanism} needs a password: SHOAL_KAFKA_SASL_PASSWORD_FILE (or SHOAL_KAFKA_SASL_PASSWORD)`);
  const sasl: KafkaSaslSettings = { mechanism: mechanism as SaslMechanism, username, password: passwordFile ? { file: passwordFile } : { value: password } };
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
