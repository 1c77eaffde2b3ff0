export * from './expectations';
export * from './ingress-ports';
export * from './service-admission';
export * from './config-admission';
export * from './limits';
