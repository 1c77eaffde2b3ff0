import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { eventually } from '../../libs/testing/src/eventually';
import { pidAlive } from '../../libs/testing/src/processes/pid-alive';
import { LocalKafkaBroker } from './broker';
import type { BrokerInfo } from './broker';

// Each test starts its own broker, separate from the one jest's global setup shares.

const accepts = (address: string): Promise<boolean> =>
  new Promise((resolve) => {
    const [host, port] = address.split(':');
    const socket = connect({ host: host!, port: Number(port) });
    socket.setTimeout(2_000, () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('LocalKafkaBroker', () => {
  it('starts a real broker on 127.0.0.1 that takes and serves records, and stops cleanly', async () => {
    // Its log outside the data dir, which must outlive stop().
    const logDir = mkdtempSync(join(tmpdir(), 'shoal-kafka-log-'));
    const broker = await LocalKafkaBroker.start({ logFile: join(logDir, 'broker.log') });
    let logSize = 0;
    try {
      expect(broker.brokers).toEqual([expect.stringMatching(/^127\.0\.0\.1:\d+$/)]);
      const info = JSON.parse(readFileSync(join(broker.dataDir, 'broker.json'), 'utf8')) as BrokerInfo;
      expect(info).toMatchObject({ pid: broker.pid, brokers: broker.brokers });

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
      expect(readFileSync(broker.logFile, 'utf8')).toMatch(/Kafka Server started/);
      logSize = statSync(broker.logFile).size;
    } finally {
      await broker.stop();
    }
    expect(pidAlive(broker.pid)).toBe(false);
    expect(await accepts(broker.brokers[0]!)).toBe(false);
    expect(existsSync(broker.dataDir)).toBe(false);
    // The log is still there, with the shutdown written to it.
    expect(statSync(broker.logFile).size).toBeGreaterThan(logSize);
    rmSync(logDir, { recursive: true, force: true });
  });

  it('does not outlive a process that dies without stopping it', async () => {
    // A child process starts a broker, reports it, and is then SIGKILLed: no teardown runs.
    const root = join(__dirname, '..', '..');
    const script = `
      const { LocalKafkaBroker } = require('./infra/kafka/broker.ts');
      LocalKafkaBroker.start().then((b) => { process.stdout.write(JSON.stringify({ pid: b.pid, dataDir: b.dataDir, brokers: b.brokers }) + '\\n'); setInterval(() => {}, 1000); });`;
    const child = spawn(process.execPath, ['-r', './bin/register.js', '-e', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const started = await new Promise<{ pid: number; dataDir: string; brokers: string[] }>((resolve, reject) => {
      let out = '';
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('\n')) resolve(JSON.parse(out.split('\n')[0]!));
      });
      child.once('exit', (code) => reject(new Error(`the child exited (${String(code)}) before its broker started`)));
    });
    expect(await accepts(started.brokers[0]!)).toBe(true);
    child.kill('SIGKILL');

    await expect(eventually('the orphaned broker stops', () => !pidAlive(started.pid), { timeoutMs: 30_000, everyMs: 100 })).resolves.toBe(true);
    await expect(eventually('its data dir is removed', () => !existsSync(started.dataDir), { timeoutMs: 5_000, everyMs: 100 })).resolves.toBe(true);
    expect(await accepts(started.brokers[0]!)).toBe(false);
  });
  it('killed with SIGKILL and restarted on its data dir, is back at the same address with every record its clients wrote', async () => {
    const first = await LocalKafkaBroker.start();
    let second: LocalKafkaBroker | undefined;
    const kafka = new Kafka({ brokers: first.brokers, logLevel: logLevel.NOTHING, retry: { retries: 30, initialRetryTime: 200, maxRetryTime: 2_000 } });
    const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
    try {
      const admin = kafka.admin();
      await admin.connect();
      await admin.createTopics({ topics: [{ topic: 'crash', numPartitions: 1 }], waitForLeaders: true });
      await admin.disconnect();
      await producer.connect();
      await producer.send({ topic: 'crash', messages: [{ value: 'before the crash' }] });

      await first.kill();
      expect(pidAlive(first.pid)).toBe(false);
      expect(await accepts(first.brokers[0]!)).toBe(false);
      expect(existsSync(first.dataDir)).toBe(true);
      second = await first.restart();
      expect(second.brokers).toEqual(first.brokers);
      expect(second.dataDir).toBe(first.dataDir);

      // The client that wrote before the crash writes on, to the same address.
      await producer.send({ topic: 'crash', messages: [{ value: 'after the restart' }] });
      const consumer = kafka.consumer({ groupId: 'crash-reader' });
      await consumer.connect();
      await consumer.subscribe({ topic: 'crash', fromBeginning: true });
      const values: string[] = [];
      await new Promise<void>((resolve) => {
        void consumer.run({
          eachMessage: async ({ message }) => {
            values.push(message.value?.toString() ?? '');
            if (values.length === 2) resolve();
          },
        });
      });
      await consumer.disconnect();
      expect(values).toEqual(['before the crash', 'after the restart']);
    } finally {
      await producer.disconnect().catch(() => undefined);
      await (second ?? first).stop();
    }
    expect(existsSync(first.dataDir)).toBe(false);
  });
});
