export * from './builders';
export * from './given-when-then';
export * from './histories';
export * from './broker';
export * from './eventually';
export * from './kafka-topic';
export * from './log-events';
export * from './processes/docker-cli';
