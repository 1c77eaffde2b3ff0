export * from './chain';
export * from './locate';
