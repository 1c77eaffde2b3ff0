/**
 * The test broker as a container on the run's test engine, through Testcontainers: the same
 * one-node KRaft broker as LocalKafkaBroker (its settings, its jars), in an image built
 * offline from the Kafka jars and this machine's JRE (infra/docker/kafka-image.sh), on the
 * host's network bound to 127.0.0.1 at a free port. Stopped explicitly (no Ryuk reaper here).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import type * as Testcontainers from 'testcontainers';
import { KAFKA_VERSION, freePorts, kafkaLib, log4jProperties, randomClusterId, requireJava, serverProperties } from '../../../../infra/kafka/broker';
import { hasImage } from '../engine/test-images';
import { useTestEngineForTestcontainers } from '../engine/testcontainers';

export const KAFKA_IMAGE = `shoal-test/kafka:${KAFKA_VERSION}`;
const KAFKA_IMAGE_SCRIPT = join(__dirname, '..', '..', '..', '..', 'infra', 'docker', 'kafka-image.sh');

export interface KafkaContainer {
  /** `127.0.0.1:<port>`. */
  readonly brokers: string[];
  /** Whether this start built the image (it is kept on the engine for the next run). */
  readonly built: boolean;
  stop(): Promise<void>;
}

/** Builds KAFKA_IMAGE on the engine at `host` unless it has it; true when it built it. */
export const buildKafkaImage = (host: string): boolean => {
  if (hasImage(host, KAFKA_IMAGE)) return false;
  requireJava();
  const lib = kafkaLib();
  const result = spawnSync('bash', [KAFKA_IMAGE_SCRIPT, lib, KAFKA_IMAGE], { encoding: 'utf8', timeout: 5 * 60_000, env: { ...process.env, DOCKER_HOST: host } });
  if (result.status !== 0) throw new Error(`building ${KAFKA_IMAGE} failed (infra/docker/kafka-image.sh exited ${String(result.status)}):\n${result.stderr}${result.stdout}`);
  return true;
};

/** Starts the broker container on the test engine `env.SHOAL_TEST_ENGINE`; resolves once the broker says it started. */
export const startKafkaContainer = async (env: NodeJS.ProcessEnv): Promise<KafkaContainer> => {
  const host = useTestEngineForTestcontainers(env);
  const built = buildKafkaImage(host);
  // Required only here: nothing of Testcontainers loads on the path without an engine.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GenericContainer, Wait } = require('testcontainers') as typeof Testcontainers;
  // On the host's network, as the local broker: it binds 127.0.0.1 itself, and no proxy of
  // the engine's sits between every client request and the broker (a published port's
  // docker-proxy made the e2e suites about twice as slow).
  const [port, controller] = (await freePorts(2)) as [number, number];
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withNetworkMode('host')
    .withCopyContentToContainer([
      { content: serverProperties(port, controller, '/var/kafka'), target: '/opt/kafka/server.properties' },
      { content: log4jProperties('/dev/stdout'), target: '/opt/kafka/log4j.properties' },
    ])
    .withCommand([
      'sh',
      '-c',
      `java -cp '/opt/kafka/lib/*' kafka.tools.StorageTool format -t ${randomClusterId()} -c /opt/kafka/server.properties --ignore-formatted >/dev/null && ` +
        "exec java -Xms256m -Xmx1g -XX:+UseG1GC -cp '/opt/kafka/lib/*' -Dlog4j.configuration=file:/opt/kafka/log4j.properties kafka.Kafka /opt/kafka/server.properties",
    ])
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(120_000)
    .start();
  return {
    brokers: [`127.0.0.1:${port}`],
    built,
    stop: async () => {
      await container.stop();
    },
  };
};
