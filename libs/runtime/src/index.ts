export * from './instance';
export * from './event-writer';
export * from './live-view';
export * from './ownership';
export * from './audit';
export * from './join-tokens';
