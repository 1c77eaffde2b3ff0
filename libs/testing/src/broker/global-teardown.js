// Jest global teardown: stops the broker global setup started (nothing for KAFKA_BROKERS).
module.exports = async () => {
  const broker = globalThis.__shoalTestBroker;
  globalThis.__shoalTestBroker = undefined;
  if (broker) await broker.stop();
};
