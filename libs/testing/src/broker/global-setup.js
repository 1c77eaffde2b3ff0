// Jest global setup: one Kafka broker for the whole run, found or started by findTestBroker;
// its address goes into process.env.KAFKA_BROKERS, which every jest worker inherits, and
// global-teardown.js stops it. SHOAL_TEST_BROKER=none skips it (npm run test:unit).
// Plain JS on purpose: jest would compile a root-level TS globalSetup (with a project's
// transform) but load its imports by plain Node resolution, without moduleNameMapper, so
// @shoal/* would not resolve; bin/register.js gives swc and those aliases, as for npm start.
require('../../../../bin/register.js');
const { findTestBroker } = require('./find-broker.ts');

module.exports = async () => {
  if (process.env.SHOAL_TEST_BROKER === 'none') return;
  const broker = await findTestBroker(process.env);
  process.env.KAFKA_BROKERS = broker.brokers.join(',');
  globalThis.__shoalTestBroker = broker;
  process.stdout.write(`\ntest broker: ${broker.description}\n`);
};
