export * from './setting';
export { isBindAddress } from './setting-rules';
export * from './shoal-environment';
export * from './shoal-settings';
export * from './shoal-config.module';
export * from './settings-table';
export * from './partitions';
