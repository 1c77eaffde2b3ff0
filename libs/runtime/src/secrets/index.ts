export * from './secret-box';
export * from './cluster-key';
export * from './secret-vault';
export * from './open-secret-vault';
