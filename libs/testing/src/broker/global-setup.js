// Jest global setup: one Docker engine and one Kafka broker for the whole run. The engine
// (findTestEngine: SHOAL_TEST_ENGINE, else a dockerd of the run's own in swarm mode, with the
// offline test images) goes into process.env.SHOAL_TEST_ENGINE, the broker (findTestBroker:
// a container on that engine where there is one, else a local JVM) into KAFKA_BROKERS (its
// PLAINTEXT listener) and SHOAL_TEST_PROCESS_KAFKA (the environment of a process that reaches
// it through its SASL_SSL listener); every jest worker inherits them, and global-teardown.js
// stops what was started.
// SHOAL_TEST_BROKER=none starts neither (npm run test:unit); SHOAL_TEST_ENGINE=none no engine.
// An engine that cannot start fails the run in CI (CI=true); elsewhere the run goes on and
// each test that needs an engine fails with the reason (testEngine() reads
// SHOAL_TEST_ENGINE_ERROR): never a silent skip.
// Plain JS on purpose: jest would compile a root-level TS globalSetup (with a project's
// transform) but load its imports by plain Node resolution, without moduleNameMapper, so
// @shoal/* would not resolve; bin/register.js gives swc and those aliases, as for npm start.
require('../../../../bin/register.js');
const { findTestBroker } = require('./find-broker.ts');
const { findTestEngine } = require('../engine/find-engine.ts');

/** The engine, or undefined with SHOAL_TEST_ENGINE_ERROR set; throws in CI. */
const findEngine = async () => {
  if (process.env.SHOAL_TEST_ENGINE === 'none') return undefined;
  try {
    return await findTestEngine(process.env);
  } catch (error) {
    if (process.env.CI === 'true') throw new Error(`CI needs a Docker engine for the tests: ${error.message}`);
    process.env.SHOAL_TEST_ENGINE_ERROR = error.message;
    process.stdout.write(`\ntest engine: NONE — every test that needs one will fail: ${error.message}\n`);
    return undefined;
  }
};

/** Sets DOCKER_HOST and the TESTCONTAINERS_* settings back as they were (Testcontainers keeps its client). */
const restoring = (names) => {
  const saved = names.map((name) => [name, process.env[name]]);
  return () => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
};

module.exports = async () => {
  if (process.env.SHOAL_TEST_BROKER === 'none') return;
  // The engine first: where one answers, the broker runs on it.
  const engine = await findEngine();
  globalThis.__shoalTestEngine = engine;
  if (engine) {
    process.env.SHOAL_TEST_ENGINE = engine.host;
    process.stdout.write(`\ntest engine: ${engine.description}\n`);
  }
  // Workers get SHOAL_TEST_ENGINE, not this process's Testcontainers settings: a test that wants them calls useTestEngineForTestcontainers().
  const restore = restoring(['DOCKER_HOST', 'TESTCONTAINERS_RYUK_DISABLED', 'TESTCONTAINERS_HOST_OVERRIDE']);
  let broker;
  try {
    broker = await findTestBroker(process.env);
  } catch (error) {
    await engine?.stop();
    throw error;
  } finally {
    restore();
  }
  globalThis.__shoalTestBroker = broker;
  process.env.KAFKA_BROKERS = broker.brokers.join(',');
  // The processes the e2e suite starts reach the broker through its SASL_SSL listener (ShoalProcesses.onKafka).
  if (broker.processEnv) process.env.SHOAL_TEST_PROCESS_KAFKA = JSON.stringify(broker.processEnv);
  else delete process.env.SHOAL_TEST_PROCESS_KAFKA;
  process.stdout.write(`test broker: ${broker.description}\n`);
};
