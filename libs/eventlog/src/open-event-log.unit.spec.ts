import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEventLog } from './embedded/embedded-event-log';
import { logSettingsFromEnv, openEventLog } from './open-event-log';

describe('openEventLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoal-open-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads Kafka brokers, the topic prefix and the data directory from the environment', () => {
    expect(logSettingsFromEnv({})).toEqual({ brokers: [], topic: 'shoal.events', dataDir: '.shoal', durability: {}, leaseTimeoutMs: 2_000 });
    expect(logSettingsFromEnv({ KAFKA_BROKERS: ' 127.0.0.1:9092, 127.0.0.1:9093 ,', SHOAL_TOPIC_PREFIX: 'blue', SHOAL_DATA_DIR: '/data' })).toEqual({
      brokers: ['127.0.0.1:9092', '127.0.0.1:9093'],
      topic: 'blue.events',
      dataDir: '/data',
      durability: {},
      leaseTimeoutMs: 2_000,
    });
  });

  it('reads the lease timeout, and refuses one below a second', () => {
    expect(logSettingsFromEnv({ SHOAL_LEASE_TIMEOUT_MS: '3500' }).leaseTimeoutMs).toBe(3_500);
    expect(() => logSettingsFromEnv({ SHOAL_LEASE_TIMEOUT_MS: '500' })).toThrow('SHOAL_LEASE_TIMEOUT_MS must be a whole number of milliseconds from 1000 to 300000, not "500"');
  });

  it('reads the replicas and min.insync.replicas the topics must have, and refuses a count that is not one', () => {
    expect(logSettingsFromEnv({ SHOAL_KAFKA_REPLICATION_FACTOR: ' 5 ', SHOAL_KAFKA_MIN_INSYNC: '3' }).durability).toEqual({ replicationFactor: 5, minInsync: 3 });
    expect(logSettingsFromEnv({ SHOAL_KAFKA_REPLICATION_FACTOR: '' }).durability).toEqual({});
    expect(() => logSettingsFromEnv({ SHOAL_KAFKA_REPLICATION_FACTOR: 'three' })).toThrow('SHOAL_KAFKA_REPLICATION_FACTOR must be a whole number of at least 1, not "three"');
    expect(() => logSettingsFromEnv({ SHOAL_KAFKA_MIN_INSYNC: '0' })).toThrow('SHOAL_KAFKA_MIN_INSYNC must be a whole number of at least 1, not "0"');
  });

  it('opens the embedded log in $SHOAL_DATA_DIR/log when no brokers are set', async () => {
    const log = await openEventLog({ SHOAL_DATA_DIR: dir });
    expect(log).toBeInstanceOf(EmbeddedEventLog);
    expect(log.description).toBe(`embedded ${join(dir, 'log')}`);
    await log.close();
  });

});
