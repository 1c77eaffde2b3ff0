export * from './choose-broker';
export * from './docker-probe';
export * from './find-broker';
export * from './kafka-container';
