// Installs node:crypto's SHA-256 for the domain's hashes before anything here takes one.
export * from './platform-sha256';
export * from './instance';
export * from './event-writer';
export * from './live-view';
export * from './ownership';
export * from './audit';
export * from './join-tokens';
export * from './object-id';
export * from './component-cores';
export * from './component-settings';
export * from './component-runner';
export * from './component.module';
export * from './run-until-signalled';
export * from './serve-component';
export * from './component-health';
export * from './view-snapshots';
export * from './prometheus';
