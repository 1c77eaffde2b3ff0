export * from './engine-docker';
export * from './find-engine';
export * from './local-engine';
export * from './own-bridge';
export * from './own-namespace';
export * from './test-engine';
export * from './test-images';
export * from './testcontainers';
