/**
 * npm run kafka:start [-- --brokers N] | kafka:stop — a local broker (or a KRaft cluster of N
 * combined broker + controller nodes) for running Shoal on Kafka by hand.
 * `start` leaves the JVMs running after this command exits (their own process group, no
 * terminal) and prints KAFKA_BROKERS=127.0.0.1:<port>[,…] last; `stop` stops them by the pids
 * in their broker.json. Files live in .shoal/kafka under the repo root (or
 * $SHOAL_DATA_DIR/kafka); a cluster's node i in node-<i> there.
 */
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LocalKafkaCluster } from '../../libs/testing/src/broker/kafka-cluster';
import { LocalKafkaBroker, runningBroker, stopPid } from './broker';
import type { BrokerInfo } from './broker';

const dataDir = resolve(process.env.SHOAL_DATA_DIR ?? join(__dirname, '..', '..', '.shoal'), 'kafka');

/** What runs in the data dir: the single broker, or a cluster's nodes. */
const running = (): BrokerInfo[] => {
  const single = runningBroker(dataDir);
  if (single) return [single];
  const nodes = existsSync(dataDir) ? readdirSync(dataDir).filter((name) => /^node-\d+$/.test(name)).sort() : [];
  return nodes.map((name) => runningBroker(join(dataDir, name))).filter((info): info is BrokerInfo => info !== undefined);
};

/** `--brokers N`: 1 by default. */
const brokerCount = (argv: readonly string[]): number => {
  const at = argv.indexOf('--brokers');
  if (at < 0) return 1;
  const raw = argv[at + 1] ?? '';
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 9) throw new Error(`--brokers takes a number of brokers from 1 to 9, not "${raw}"`);
  return Number(raw);
};

const main = async (command: string | undefined, argv: readonly string[]): Promise<number> => {
  switch (command) {
    case 'start': {
      const count = brokerCount(argv);
      const up = running();
      if (up.length > 0) {
        process.stdout.write(`already running (pid ${up.map((info) => info.pid).join(', ')}; kafka:stop first for another size)\nKAFKA_BROKERS=${up.flatMap((info) => info.brokers).join(',')}\n`);
        return 0;
      }
      rmSync(dataDir, { recursive: true, force: true });
      const started = Date.now();
      const took = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;
      if (count === 1) {
        const broker = await LocalKafkaBroker.start({ dataDir, detached: true });
        process.stdout.write(`Kafka ${broker.version} is up in ${took()} (pid ${broker.pid}, log ${broker.logFile})\nKAFKA_BROKERS=${broker.brokers.join(',')}\n`);
        return 0;
      }
      const cluster = await LocalKafkaCluster.start({ nodes: count, dataDir, detached: true });
      process.stdout.write(
        `Kafka ${cluster.nodes[0]!.version}: ${count} KRaft nodes are up in ${took()} (pids ${cluster.nodes.map((node) => node.pid).join(', ')}; logs in ${dataDir}/node-*/broker.log)\n` +
          `KAFKA_BROKERS=${cluster.brokers.join(',')}\n`,
      );
      return 0;
    }
    case 'stop': {
      const up = running();
      if (up.length === 0) {
        process.stdout.write('no broker is running\n');
        return 0;
      }
      await Promise.all(up.map((info) => stopPid(info.pid)));
      process.stdout.write(`stopped ${up.length === 1 ? 'the broker' : `${up.length} brokers`} (pid ${up.map((info) => info.pid).join(', ')})\n`);
      return 0;
    }
    default:
      process.stderr.write('usage: kafka:start [-- --brokers N] | kafka:stop  (node -r ./bin/register.js infra/kafka/cli.ts start [--brokers N] | stop)\n');
      return 2;
  }
};

main(process.argv[2], process.argv.slice(3)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
