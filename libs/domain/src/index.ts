export * from './state';
export * from './verdict';
export * from './evolve';
export * from './reservations';
export * from './state-hash';
export * from './snapshot';
export * from './projection';
export * from './hash';
