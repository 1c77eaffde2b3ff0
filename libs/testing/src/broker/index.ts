export * from './choose-broker';
export * from './docker-probe';
export * from './find-broker';
export * from './kafka-container';
/** Ports free on 127.0.0.1 now, held open together so none is handed out twice. */
export { freePorts } from '../../../../infra/kafka/broker';
export * from './kafka-cluster';
