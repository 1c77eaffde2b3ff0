export * from './port';
export * from './log-unavailable';
export * from './embedded/embedded-event-log';
export * from './kafka/kafka-event-log';
export * from './open-event-log';
export * from './eventlog.module';
export * from './snapshots/file-snapshot-store';
