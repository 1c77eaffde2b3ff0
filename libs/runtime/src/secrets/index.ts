export * from './secret-box';
export * from './cluster-key';
export * from './unlock-key';
export * from './secret-vault';
export * from './cluster-keyring';
