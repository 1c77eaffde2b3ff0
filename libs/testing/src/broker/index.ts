export * from './choose-broker';
export * from './docker-probe';
export * from './find-broker';
export * from './kafka-container';
/** Ports free on 127.0.0.1 now, held open together so none is handed out twice. */
export { freePorts } from '../../../../infra/kafka/broker';
/** A broker of a test's own, on its own ports and data dir: one to kill, restart, or put behind a proxy. */
export { LocalKafkaBroker } from '../../../../infra/kafka/broker';
export * from './kafka-cluster';
