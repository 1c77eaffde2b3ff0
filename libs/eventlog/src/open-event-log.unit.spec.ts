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
    expect(logSettingsFromEnv({})).toEqual({ brokers: [], topic: 'shoal.events', dataDir: '.shoal', durability: {}, leaseTimeoutMs: 2_000, partitions: [0] });
    expect(logSettingsFromEnv({ KAFKA_BROKERS: ' 127.0.0.1:9092, 127.0.0.1:9093 ,', SHOAL_TOPIC_PREFIX: 'blue', SHOAL_DATA_DIR: '/data' })).toEqual({
      brokers: ['127.0.0.1:9092', '127.0.0.1:9093'],
      topic: 'blue.events',
      dataDir: '/data',
      durability: {},
      leaseTimeoutMs: 2_000,
      partitions: [0],
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

  it('refuses several partitions to a process that serves one cluster, and partitions the embedded log has not', async () => {
    await expect(openEventLog({ SHOAL_DATA_DIR: dir, SHOAL_PARTITIONS: '0-3' }, 'shoal-api')).rejects.toThrow(
      'SHOAL_PARTITIONS=0-3: shoal-api serves one cluster, so one partition: name one, and run one shoal-api per partition',
    );
    await expect(openEventLog({ SHOAL_DATA_DIR: dir, SHOAL_PARTITIONS: '0-3' }, 'shoal-scheduler', { manyPartitions: true })).rejects.toThrow(
      'SHOAL_PARTITIONS=0-3: the embedded log has one partition, 0; serving others needs Kafka (KAFKA_BROKERS)',
    );
    const log = await openEventLog({ SHOAL_DATA_DIR: dir, SHOAL_PARTITIONS: 'all' }, 'shoal-scheduler', { manyPartitions: true });
    expect(log).toBeInstanceOf(EmbeddedEventLog);
    await log.close();
  });

  it('opens the embedded log in $SHOAL_DATA_DIR/log when no brokers are set', async () => {
    const log = await openEventLog({ SHOAL_DATA_DIR: dir });
    expect(log).toBeInstanceOf(EmbeddedEventLog);
    expect(log.description).toBe(`embedded ${join(dir, 'log')}`);
    await log.close();
  });

});
