import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeKafkaConnection, kafkaConnectionFromEnv, kafkajsConnection } from './connection-settings';
import { logSettingsFromEnv } from '../open-event-log';

describe('Kafka connection settings', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shoal-kafka-conn-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is PLAINTEXT when nothing is set, and the log settings carry none', () => {
    expect(kafkaConnectionFromEnv({})).toEqual({});
    expect(logSettingsFromEnv({ KAFKA_BROKERS: 'b:9092' }).connection).toBeUndefined();
    expect(describeKafkaConnection({})).toBe('PLAINTEXT');
  });

  it('reads SSL files and a SCRAM user whose password is in a file, for kafkajs', () => {
    for (const [name, text] of [['ca.pem', 'CA'], ['cert.pem', 'CERT'], ['key.pem', 'KEY'], ['password', 's3cret pass\n']] as const) writeFileSync(join(dir, name), text);
    const env = {
      SHOAL_KAFKA_SSL_CA: join(dir, 'ca.pem'),
      SHOAL_KAFKA_SSL_CERT: join(dir, 'cert.pem'),
      SHOAL_KAFKA_SSL_KEY: join(dir, 'key.pem'),
      SHOAL_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      SHOAL_KAFKA_SASL_USERNAME: 'shoal-api',
      SHOAL_KAFKA_SASL_PASSWORD_FILE: join(dir, 'password'),
    };
    const settings = kafkaConnectionFromEnv(env);
    expect(logSettingsFromEnv({ ...env, KAFKA_BROKERS: 'b:9093' }).connection).toEqual(settings);
    expect(kafkajsConnection(settings)).toEqual({
      ssl: { rejectUnauthorized: true, ca: ['CA'], cert: 'CERT', key: 'KEY' },
      sasl: { mechanism: 'scram-sha-512', username: 'shoal-api', password: 's3cret pass' },
    });
    expect(describeKafkaConnection(settings)).toBe('SASL_SSL SCRAM-SHA-512 as shoal-api');
    expect(JSON.stringify(settings)).not.toContain('s3cret');
  });

  it('takes SHOAL_KAFKA_SSL=1 alone as TLS with the system CAs, and PLAIN with a password in the environment', () => {
    const settings = kafkaConnectionFromEnv({ SHOAL_KAFKA_SSL: '1', SHOAL_KAFKA_SASL_MECHANISM: 'plain', SHOAL_KAFKA_SASL_USERNAME: 'u', SHOAL_KAFKA_SASL_PASSWORD: 'p' });
    expect(kafkajsConnection(settings)).toEqual({ ssl: true, sasl: { mechanism: 'plain', username: 'u', password: 'p' } });
    expect(describeKafkaConnection(settings)).toBe('SASL_SSL PLAIN as u');
  });

  it('says which variable to fix', () => {
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SSL: 'maybe' })).toThrow('SHOAL_KAFKA_SSL must be 1 or 0 (true or false), not "maybe"');
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SSL_CERT: 'c' })).toThrow(/SHOAL_KAFKA_SSL_CERT and SHOAL_KAFKA_SSL_KEY go together/);
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SASL_USERNAME: 'u' })).toThrow(/SHOAL_KAFKA_SASL_MECHANISM must be set/);
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SASL_MECHANISM: 'gssapi', SHOAL_KAFKA_SASL_USERNAME: 'u' })).toThrow(/must be one of scram-sha-512, scram-sha-256, plain, not "gssapi"/);
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SASL_MECHANISM: 'plain', SHOAL_KAFKA_SASL_PASSWORD: 'p' })).toThrow(/needs SHOAL_KAFKA_SASL_USERNAME/);
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SASL_MECHANISM: 'plain', SHOAL_KAFKA_SASL_USERNAME: 'u' })).toThrow(/needs a password: SHOAL_KAFKA_SASL_PASSWORD_FILE/);
    expect(() => kafkaConnectionFromEnv({ SHOAL_KAFKA_SASL_MECHANISM: 'plain', SHOAL_KAFKA_SASL_USERNAME: 'u', SHOAL_KAFKA_SASL_PASSWORD: 'p', SHOAL_KAFKA_SASL_PASSWORD_FILE: 'f' })).toThrow(/not both/);
    const missing = kafkaConnectionFromEnv({ SHOAL_KAFKA_SSL_CA: join(dir, 'nope.pem') });
    expect(() => kafkajsConnection(missing)).toThrow(`SHOAL_KAFKA_SSL_CA: ${join(dir, 'nope.pem')} not found`);
  });
});
