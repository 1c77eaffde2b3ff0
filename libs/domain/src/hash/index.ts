export * from './sha256';
export * from './canonical';
