// Jest global teardown: stops the broker global setup started (if it started one).
module.exports = async () => {
  const broker = globalThis.__shoalTestBroker;
  if (broker) await broker.stop();
};
