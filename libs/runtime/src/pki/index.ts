export * from './x509-builder';
export * from './cluster-ca';
export * from './node-certificates';
export * from './root-rotation';
