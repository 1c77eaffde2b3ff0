import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { Kafka, logLevel } from 'kafkajs';
import { LocalKafkaBroker } from './broker';

const accepts = (address: string): Promise<boolean> =>
  new Promise((resolve) => {
    const [host, port] = address.split(':');
    const socket = connect({ host: host!, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('LocalKafkaBroker', () => {
  it('starts a real broker on 127.0.0.1 that takes and serves records, and stops cleanly', async () => {
    const broker = await LocalKafkaBroker.start();
    try {
      expect(broker.brokers[0]).toMatch(/^127\.0\.0\.1:\d+$/);
      const kafka = new Kafka({ brokers: broker.brokers, logLevel: logLevel.NOTHING });
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'probe', numPartitions: 1 }], waitForLeaders: true });
      await admin.disconnect();
      const producer = kafka.producer();
      await producer.connect();
      await producer.send({ topic: 'probe', messages: [{ key: 'k', value: 'hello, broker' }] });
      await producer.disconnect();
      const consumer = kafka.consumer({ groupId: 'probe-reader' });
      await consumer.connect();
      await consumer.subscribe({ topic: 'probe', fromBeginning: true });
      const value = await new Promise<string>((resolve) => {
        void consumer.run({ eachMessage: async ({ message }) => resolve(message.value?.toString() ?? '') });
      });
      await consumer.disconnect();
      expect(value).toBe('hello, broker');
      expect(existsSync(broker.logFile)).toBe(true);
    } finally {
      await broker.stop();
    }
    expect(await accepts(broker.brokers[0]!)).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
  });
});
