import { Test } from '@nestjs/testing';
import { ConfigService } from '@nestjs/config';
import { DEFAULT_CHECKPOINT_MS, DEFAULT_CHECKPOINT_RECORDS, MAX_CHECKPOINT_RECORDS } from '@shoal/runtime';
import { DEFAULT_ENGINE } from '../../../apps/agent/src/docker/engine-client';
import { SHOAL_SETTINGS, ShoalConfigModule } from './shoal-config.module';
import type { ShoalConfiguration } from './shoal-config.module';
import { ConfigurationError, defaultSettings, shoalSettings } from './shoal-settings';

const problemsOf = (env: Record<string, string>): readonly string[] => {
  try {
    shoalSettings(env);
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems;
    throw error;
  }
  return [];
};

describe('the settings, read from the environment through one declaration', () => {
  it('runs with the defaults every process had when nothing is set', () => {
    const settings = shoalSettings({});
    expect({ ...settings, given: [...settings.given] }).toEqual({
      KAFKA_BROKERS: [],
      SHOAL_TOPIC_PREFIX: 'shoal',
      SHOAL_DATA_DIR: '.shoal',
      SHOAL_PARTITIONS: '0',
      SHOAL_KAFKA_SSL: false,
      SHOAL_LEASE_TIMEOUT_MS: 2_000,
      SHOAL_LOG_LEVEL: 'info',
      SHOAL_BIND_HOST: '127.0.0.1',
      SHOAL_HEALTH_PORT: 0,
      SHOAL_SNAPSHOT_EVERY_MS: 30_000,
      SHOAL_API_PORT: 8080,
      SHOAL_API_HOST: '127.0.0.1',
      SHOAL_API_TLS: false,
      SHOAL_API_TLSVERIFY: false,
      SHOAL_JOIN_ADDR: '127.0.0.1:2377',
      SHOAL_DISPATCHER_PORT: 2377,
      SHOAL_DISPATCHER_TLS: false,
      SHOAL_AUDIT_CHECKPOINT_RECORDS: 5_000,
      SHOAL_AUDIT_CHECKPOINT_SECONDS: 60,
      SHOAL_SIM_NODES: 3,
      SHOAL_EXECUTOR: 'sim',
      SHOAL_ENGINE: 'unix:///var/run/docker.sock',
      given: [],
    });
    // The defaults the code that uses them keeps on its side agree.
    expect(settings.SHOAL_ENGINE).toBe(DEFAULT_ENGINE);
    expect(settings.SHOAL_AUDIT_CHECKPOINT_RECORDS).toBe(DEFAULT_CHECKPOINT_RECORDS);
    expect(settings.SHOAL_AUDIT_CHECKPOINT_SECONDS * 1000).toBe(DEFAULT_CHECKPOINT_MS);
    expect(problemsOf({ SHOAL_AUDIT_CHECKPOINT_RECORDS: String(MAX_CHECKPOINT_RECORDS) })).toEqual([]);
    expect(problemsOf({ SHOAL_AUDIT_CHECKPOINT_RECORDS: String(MAX_CHECKPOINT_RECORDS + 1) })).toHaveLength(1);
    expect(defaultSettings()).toEqual(expect.objectContaining({ SHOAL_API_PORT: 8080, SHOAL_DISPATCHER_PORT: 2377 }));
  });

  it('converts what it is given: trimmed, blank as unset, flags and levels in any case, a list of brokers', () => {
    const settings = shoalSettings({
      SHOAL_API_PORT: ' 81 ',
      SHOAL_DISPATCHER_PORT: '',
      KAFKA_BROKERS: ' a:9092, b:9093 ,',
      SHOAL_KAFKA_SSL: 'Yes',
      SHOAL_API_TLS: 'off',
      SHOAL_LOG_LEVEL: ' DEBUG ',
      SHOAL_KAFKA_SASL_MECHANISM: 'SCRAM-SHA-512',
      SHOAL_KAFKA_SASL_USERNAME: ' shoal ',
      SHOAL_KAFKA_SASL_PASSWORD: ' spaced ',
      SHOAL_CLUSTER_ID: ' c1 ',
    });
    expect(settings).toMatchObject({
      SHOAL_API_PORT: 81,
      SHOAL_DISPATCHER_PORT: 2377,
      KAFKA_BROKERS: ['a:9092', 'b:9093'],
      SHOAL_KAFKA_SSL: true,
      SHOAL_API_TLS: false,
      SHOAL_LOG_LEVEL: 'debug',
      SHOAL_KAFKA_SASL_MECHANISM: 'scram-sha-512',
      SHOAL_KAFKA_SASL_USERNAME: 'shoal',
      SHOAL_KAFKA_SASL_PASSWORD: ' spaced ',
      SHOAL_CLUSTER_ID: 'c1',
    });
    expect([...settings.given].sort()).toEqual(
      ['KAFKA_BROKERS', 'SHOAL_API_PORT', 'SHOAL_API_TLS', 'SHOAL_CLUSTER_ID', 'SHOAL_KAFKA_SASL_MECHANISM', 'SHOAL_KAFKA_SASL_PASSWORD', 'SHOAL_KAFKA_SASL_USERNAME', 'SHOAL_KAFKA_SSL', 'SHOAL_LOG_LEVEL'].sort(),
    );
  });

  it('refuses a bad value of every kind, each named with what to set', () => {
    expect(problemsOf({ SHOAL_API_PORT: 'abc' })).toEqual(['SHOAL_API_PORT must be a port number (0–65535), not "abc"']);
    expect(problemsOf({ SHOAL_DISPATCHER_PORT: '70000' })).toEqual(['SHOAL_DISPATCHER_PORT must be a port number (0–65535), not "70000"']);
    expect(problemsOf({ SHOAL_SIM_NODES: '-1' })).toEqual(['SHOAL_SIM_NODES must be a whole number, not "-1"']);
    expect(problemsOf({ SHOAL_KAFKA_MIN_INSYNC: '0' })).toEqual(['SHOAL_KAFKA_MIN_INSYNC must be a whole number of at least 1, not "0"']);
    expect(problemsOf({ SHOAL_AUDIT_CHECKPOINT_SECONDS: '1.5' })).toEqual(['SHOAL_AUDIT_CHECKPOINT_SECONDS must be a whole number of at least 1, not "1.5"']);
    expect(problemsOf({ SHOAL_API_TLSVERIFY: 'maybe' })).toEqual(['SHOAL_API_TLSVERIFY must be 1 or 0 (true or false), not "maybe"']);
    expect(problemsOf({ SHOAL_LOG_LEVEL: 'loud' })).toEqual(['SHOAL_LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, not "loud"']);
    expect(problemsOf({ SHOAL_EXECUTOR: 'Docker' })).toEqual(['SHOAL_EXECUTOR must be sim or docker, not "Docker"']);
    expect(problemsOf({ SHOAL_DISPATCHER_ADVERTISE: 'no-port' })).toEqual(['SHOAL_DISPATCHER_ADVERTISE must be host:port, not "no-port"']);
    expect(problemsOf({ SHOAL_BIND_HOST: 'not a host' })).toEqual(['SHOAL_BIND_HOST must be an IP address or a host name to bind, not "not a host"']);
  });

  it('refuses settings that do not go together, naming both', () => {
    expect(problemsOf({ SHOAL_KAFKA_SSL_KEY: 'key.pem' })).toEqual(['SHOAL_KAFKA_SSL_CERT and SHOAL_KAFKA_SSL_KEY go together: a client certificate needs its key (or set neither)']);
    expect(problemsOf({ SHOAL_KAFKA_SSL_CERT: 'cert.pem', SHOAL_KAFKA_SSL_KEY: 'key.pem' })).toEqual([]);
    const sasl = { SHOAL_KAFKA_SASL_MECHANISM: 'plain', SHOAL_KAFKA_SASL_USERNAME: 'u' };
    expect(problemsOf({ ...sasl, SHOAL_KAFKA_SASL_PASSWORD: 'p', SHOAL_KAFKA_SASL_PASSWORD_FILE: '/run/p' })).toEqual(['set SHOAL_KAFKA_SASL_PASSWORD or SHOAL_KAFKA_SASL_PASSWORD_FILE, not both']);
    expect(problemsOf(sasl)).toEqual(['SHOAL_KAFKA_SASL_MECHANISM=plain needs a password: SHOAL_KAFKA_SASL_PASSWORD_FILE (or SHOAL_KAFKA_SASL_PASSWORD)']);
    expect(problemsOf({ ...sasl, SHOAL_KAFKA_SASL_PASSWORD_FILE: '/run/p' })).toEqual([]);
    expect(problemsOf({ SHOAL_KAFKA_SASL_PASSWORD: 'p' })).toEqual([expect.stringMatching(/^SHOAL_KAFKA_SASL_MECHANISM must be set/)]);
    expect(problemsOf({ SHOAL_KAFKA_SASL_MECHANISM: 'gssapi', SHOAL_KAFKA_SASL_USERNAME: 'u', SHOAL_KAFKA_SASL_PASSWORD: 'p' })).toEqual([
      'SHOAL_KAFKA_SASL_MECHANISM must be one of scram-sha-512, scram-sha-256, plain, not "gssapi"',
    ]);
  });

  it('lists every bad variable in one message', () => {
    expect(() => shoalSettings({ SHOAL_API_PORT: 'abc', SHOAL_KAFKA_SSL: 'maybe', PATH: 'anything' })).toThrow(
      ['2 bad settings:', '  - SHOAL_KAFKA_SSL must be 1 or 0 (true or false), not "maybe"', '  - SHOAL_API_PORT must be a port number (0–65535), not "abc"'].join('\n'),
    );
  });

  describe('in a Nest app (ShoalConfigModule)', () => {
    const saved = { ...process.env };
    afterEach(() => {
      for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
      Object.assign(process.env, saved);
    });

    it('stops the app at its start on a bad value, naming it', async () => {
      process.env.SHOAL_HEALTH_PORT = 'http';
      await expect(ShoalConfigModule.forRoot()).rejects.toThrow('SHOAL_HEALTH_PORT must be a port number (0–65535), not "http"');
    });

    it('gives providers the settings, and writes no default back into the environment', async () => {
      delete process.env.SHOAL_API_PORT;
      process.env.SHOAL_SIM_NODES = '5';
      const app = await Test.createTestingModule({ imports: [ShoalConfigModule.forRoot()] }).compile();
      const settings = app.get<ConfigService<ShoalConfiguration, true>>(ConfigService).get(SHOAL_SETTINGS, { infer: true });
      expect(settings).toMatchObject({ SHOAL_SIM_NODES: 5, SHOAL_API_PORT: 8080 });
      expect(process.env.SHOAL_API_PORT).toBeUndefined();
      await app.close();
    });
  });
});
