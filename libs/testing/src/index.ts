export * from './builders';
export * from './given-when-then';
export * from './histories';
export * from './broker';
