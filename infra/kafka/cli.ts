/**
 * npm run kafka:start | kafka:stop — a local broker for running Shoal on Kafka by hand.
 * It keeps running after this command exits; its files live in .shoal/kafka.
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LocalKafkaBroker, runningBroker, stopPid } from './broker';

const dataDir = resolve(process.env.SHOAL_DATA_DIR ?? join(__dirname, '..', '..', '.shoal'), 'kafka');

const main = async (command: string | undefined): Promise<number> => {
  switch (command) {
    case 'start': {
      const running = runningBroker(dataDir);
      if (running) {
        process.stdout.write(`already running (pid ${running.pid})\nKAFKA_BROKERS=${running.brokers.join(',')}\n`);
        return 0;
      }
      rmSync(dataDir, { recursive: true, force: true });
      const started = Date.now();
      const broker = await LocalKafkaBroker.start({ dataDir, detached: true });
      process.stdout.write(`Kafka is up in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${broker.pid}, logs in ${dataDir})\nKAFKA_BROKERS=${broker.brokers.join(',')}\n`);
      return 0;
    }
    case 'stop': {
      const running = runningBroker(dataDir);
      if (!running) {
        process.stdout.write('no broker is running\n');
        return 0;
      }
      await stopPid(running.pid);
      process.stdout.write(`stopped the broker (pid ${running.pid})\n`);
      return 0;
    }
    default:
      process.stderr.write('usage: kafka:start | kafka:stop  (node -r ./bin/register.js infra/kafka/cli.ts start|stop)\n');
      return 2;
  }
};

main(process.argv[2]).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
