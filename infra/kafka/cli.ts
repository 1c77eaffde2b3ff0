/**
 * npm run kafka:start | kafka:stop — a local broker for running Shoal on Kafka by hand.
 * `start` leaves the JVM running after this command exits (its own process group, no
 * terminal) and prints KAFKA_BROKERS=127.0.0.1:<port> last; `stop` stops it by the pid in
 * broker.json. Its files live in .shoal/kafka under the repo root (or $SHOAL_DATA_DIR/kafka).
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
      process.stdout.write(
        `Kafka ${broker.version} is up in ${((Date.now() - started) / 1000).toFixed(1)} s (pid ${broker.pid}, log ${broker.logFile})\nKAFKA_BROKERS=${broker.brokers.join(',')}\n`,
      );
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
