import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { describeEventLogContract } from '../contract/event-log.contract';
import { KafkaEventLog } from './kafka-event-log';

const brokers = (): string[] => {
  const list = (process.env.KAFKA_BROKERS ?? '').split(',').filter(Boolean);
  if (list.length === 0) throw new Error('KAFKA_BROKERS is not set: run the int tests through `npm test`, which starts a broker');
  return list;
};

const topics = new Map<object, string>();
const openOn = async (topic: string) => {
  const log = await KafkaEventLog.open({ brokers: brokers(), topic, clientId: 'contract' });
  topics.set(log, topic);
  return log;
};

describeEventLogContract('kafka', {
  open: () => openOn(`shoal-test-${randomUUID()}.events`),
  reopen: async (log) => {
    await log.close();
    return openOn(topics.get(log)!);
  },
  another: (log) => openOn(topics.get(log)!),
});

describe('KafkaEventLog', () => {
  it('creates its topic with infinite retention', async () => {
    const topic = `shoal-test-${randomUUID()}.events`;
    const log = await openOn(topic);
    const admin = new Kafka({ brokers: brokers(), logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: 2, name: topic, configNames: ['retention.ms', 'retention.bytes', 'cleanup.policy'] }],
      });
      const config = Object.fromEntries(resources[0]!.configEntries.map((entry) => [entry.configName, entry.configValue]));
      expect(config).toEqual({ 'retention.ms': '-1', 'retention.bytes': '-1', 'cleanup.policy': 'delete' });
    } finally {
      await admin.disconnect();
      await log.close();
    }
  });

  it('opens an existing topic without complaint', async () => {
    const topic = `shoal-test-${randomUUID()}.events`;
    const first = await openOn(topic);
    await first.append([{ key: 'c1', value: 'x' }]);
    const second = await openOn(topic);
    expect(await second.highWaterMark()).toBe(1);
    await Promise.all([first.close(), second.close()]);
  });
});
