// Mutation testing of the pure core (libs/domain, libs/contracts): `npm run mutate`, not part
// of `npm test`. Each mutant is type-checked (a mutant that does not compile is no test of the
// specs) and run against only the unit specs that cover it. Incremental: a rerun tests only
// the mutants whose code or covering specs changed since the last report. Narrow a run with
// `npm run mutate -- --mutate 'libs/domain/src/scheduler/**/*.ts'` (one glob; several are
// one argument, comma-separated). See docs/testing.md.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  testRunner: 'jest',
  jest: { projectType: 'custom', configFile: 'jest.mutation.config.js', enableFindRelatedTests: true },
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  typescriptChecker: { prioritizePerformanceOverAccuracy: true },
  mutate: ['libs/domain/src/**/*.ts', 'libs/contracts/src/**/*.ts', '!**/*.spec.ts', '!**/index.ts'],
  coverageAnalysis: 'perTest',
  // Mutants in code that runs when a module loads would need every spec run for each: left out.
  ignoreStatic: true,
  // Two cores, shared with other work: two jest workers (and two checkers) at most.
  concurrency: 2,
  // The machine is shared: a spec can take twice its dry-run time without looping. Generous
  // timeouts keep a slow run from passing for a kill.
  timeoutMS: 30000,
  timeoutFactor: 2.5,
  incremental: true,
  incrementalFile: 'reports/mutation/stryker-incremental.json',
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  ignorePatterns: ['.shoal', 'dist', 'coverage', 'reports', '.cache', '*.log'],
};
