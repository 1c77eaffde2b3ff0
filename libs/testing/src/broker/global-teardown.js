// Jest global teardown: stops the broker, then the engine (the broker may run on it), that
// global setup started; nothing for KAFKA_BROKERS or SHOAL_TEST_ENGINE given from outside.
module.exports = async () => {
  const broker = globalThis.__shoalTestBroker;
  const engine = globalThis.__shoalTestEngine;
  globalThis.__shoalTestBroker = undefined;
  globalThis.__shoalTestEngine = undefined;
  try {
    await broker?.stop();
  } finally {
    await engine?.stop();
  }
};
