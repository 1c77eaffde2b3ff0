// Jest global setup: one Kafka broker for the whole run (skipped with SHOAL_TEST_BROKER=none).
require('../../../../bin/register.js');
const { findTestBroker } = require('./find-broker.ts');

module.exports = async () => {
  if (process.env.SHOAL_TEST_BROKER === 'none') return;
  const broker = await findTestBroker(process.env);
  process.env.KAFKA_BROKERS = broker.brokers.join(',');
  globalThis.__shoalTestBroker = broker;
  process.stdout.write(`\ntest broker: ${broker.description}\n`);
};
