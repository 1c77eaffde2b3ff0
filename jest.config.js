// One `npm test` runs three levels:
//   unit  — *.unit.spec.ts, pure and in-process (embedded log), no broker
//   int   — *.int.spec.ts, against a real Kafka broker
//   e2e   — test/e2e/**/*.e2e.spec.ts, separate processes on a real broker
// The Docker engine and the broker are found (or started) once, in globalSetup, and shared by
// every worker (SHOAL_TEST_ENGINE, KAFKA_BROKERS); see docs/testing.md.
const swc = [
  '@swc/jest',
  {
    jsc: {
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true },
      target: 'es2022',
    },
    module: { type: 'commonjs' },
    sourceMaps: 'inline',
  },
];

const moduleNameMapper = {
  '^@shoal/(config|contracts|docker-api|domain|eventlog|protocol|runtime|testing)$': '<rootDir>/libs/$1/src',
};

const common = {
  rootDir: __dirname,
  transform: { '^.+\\.ts$': swc },
  moduleFileExtensions: ['ts', 'js', 'json'],
  moduleNameMapper,
  testEnvironment: 'node',
};

module.exports = {
  // Integration and end-to-end tests wait on a real broker; unit tests never come near this.
  testTimeout: 120000,
  // On two cores jest runs the suites in band, in its own process: a handle a failed test leaves
  // open (a child process it never got to stop) must not keep CI waiting after the verdict.
  forceExit: true,
  reporters: ['default', '<rootDir>/libs/testing/src/jest/summary-reporter.js'],
  globalSetup: '<rootDir>/libs/testing/src/broker/global-setup.js',
  globalTeardown: '<rootDir>/libs/testing/src/broker/global-teardown.js',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs,infra,test}/**/*.unit.spec.ts'] },
    { ...common, displayName: 'int', testMatch: ['<rootDir>/{apps,libs,infra}/**/*.int.spec.ts'] },
    { ...common, displayName: 'e2e', testMatch: ['<rootDir>/test/e2e/**/*.e2e.spec.ts'] },
  ],
};
