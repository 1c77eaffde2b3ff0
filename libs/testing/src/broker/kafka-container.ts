/**
 * The test broker as a container on the run's test engine, through Testcontainers: the same
 * one-node KRaft broker as LocalKafkaBroker (its settings, its jars), in an image built
 * offline from the Kafka jars and this machine's JRE (infra/docker/kafka-image.sh), on the
 * host's network bound to 127.0.0.1 at a free port. Stopped explicitly (no Ryuk reaper here).
 * Beside its PLAINTEXT listener (the tests' own clients) it has a SASL_SSL one (mutual TLS,
 * SCRAM-SHA-512; infra/kafka/sasl-ssl-listener.ts), which the Shoal processes the e2e suite
 * starts reach it through.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as Testcontainers from 'testcontainers';
import { KAFKA_VERSION, freePorts, kafkaLib, log4jProperties, randomClusterId, requireJava, serverProperties } from '../../../../infra/kafka/broker';
import { CA_FILE, KEYSTORE_FILE, SASL_SSL, SaslSslListener, scramCredential } from '../../../../infra/kafka/sasl-ssl-listener';
import type { KafkaUser } from '../../../../infra/kafka/sasl-ssl-listener';
import { hasImage } from '../engine/test-images';
import { useTestEngineForTestcontainers } from '../engine/testcontainers';

export const KAFKA_IMAGE = `shoal-test/kafka:${KAFKA_VERSION}`;
const KAFKA_IMAGE_SCRIPT = join(__dirname, '..', '..', '..', '..', 'infra', 'docker', 'kafka-image.sh');

export interface KafkaContainer {
  /** `127.0.0.1:<port>`: the PLAINTEXT listener. */
  readonly brokers: string[];
  /** A Shoal process's environment to reach the broker through its SASL_SSL listener only. */
  readonly processEnv: Record<string, string>;
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

/** Where the container reads the SASL_SSL listener's files. */
const TLS_IN_CONTAINER = '/opt/kafka/tls';

/** Starts the broker container on the test engine `env.SHOAL_TEST_ENGINE`, with `scram` a SCRAM-SHA-512 user of its SASL_SSL listener; resolves once the broker says it started. */
export const startKafkaContainer = async (env: NodeJS.ProcessEnv, scram: KafkaUser): Promise<KafkaContainer> => {
  const host = useTestEngineForTestcontainers(env);
  const built = buildKafkaImage(host);
  // Required only here: nothing of Testcontainers loads on the path without an engine.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { GenericContainer, Wait } = require('testcontainers') as typeof Testcontainers;
  // On the host's network, as the local broker: it binds 127.0.0.1 itself, and no proxy of
  // the engine's sits between every client request and the broker (a published port's
  // docker-proxy made the e2e suites about twice as slow).
  const [port, controller, securePort] = (await freePorts(3)) as [number, number, number];
  const tlsDir = mkdtempSync(join(tmpdir(), 'shoal-test-kafka-tls-'));
  const listener = SaslSslListener.make({ host: '127.0.0.1', port: securePort, tlsDir });
  const properties = [
    serverProperties(port, controller, '/var/kafka'),
    `listeners=PLAINTEXT://127.0.0.1:${port},CONTROLLER://127.0.0.1:${controller},${SASL_SSL}://127.0.0.1:${securePort}`,
    `advertised.listeners=PLAINTEXT://127.0.0.1:${port},${SASL_SSL}://127.0.0.1:${securePort}`,
    `listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,${SASL_SSL}:SASL_SSL`,
    ...listener.properties(TLS_IN_CONTAINER),
    '',
  ].join('\n');
  const container = await new GenericContainer(KAFKA_IMAGE)
    .withNetworkMode('host')
    .withCopyContentToContainer([
      { content: properties, target: '/opt/kafka/server.properties' },
      { content: log4jProperties('/dev/stdout'), target: '/opt/kafka/log4j.properties' },
      { content: readFileSync(join(tlsDir, CA_FILE), 'utf8'), target: `${TLS_IN_CONTAINER}/${CA_FILE}` },
      { content: readFileSync(join(tlsDir, KEYSTORE_FILE), 'utf8'), target: `${TLS_IN_CONTAINER}/${KEYSTORE_FILE}`, mode: 0o600 },
    ])
    .withCommand([
      'sh',
      '-c',
      // The SCRAM user is made with the storage (KRaft), before the broker starts.
      `java -cp '/opt/kafka/lib/*' kafka.tools.StorageTool format -t ${randomClusterId()} -c /opt/kafka/server.properties --add-scram '${scramCredential(scram)}' --ignore-formatted >/dev/null && ` +
        "exec java -Xms256m -Xmx1g -XX:+UseG1GC -cp '/opt/kafka/lib/*' -Dlog4j.configuration=file:/opt/kafka/log4j.properties kafka.Kafka /opt/kafka/server.properties",
    ])
    .withWaitStrategy(Wait.forLogMessage(/Kafka Server started/))
    .withStartupTimeout(120_000)
    .start();
  return {
    brokers: [`127.0.0.1:${port}`],
    processEnv: listener.processEnv(scram),
    built,
    stop: async () => {
      await container.stop();
      rmSync(tlsDir, { recursive: true, force: true });
    },
  };
};
