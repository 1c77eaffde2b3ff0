export * from './expectations';
export * from './ingress-ports';
export * from './service-admission';
export * from './config-admission';
export * from './network-admission';
export * from './limits';
export * from './secret-admission';
