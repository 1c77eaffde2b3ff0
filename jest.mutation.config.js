// The jest configuration `npm run mutate` runs each mutant under (stryker.config.mjs): the unit
// project of jest.config.js, narrowed to the specs of the libraries that are mutated. No
// broker, no engine, no global setup: a mutant is judged by the pure specs beside its code.
const { projects } = require('./jest.config.js');

process.env.SHOAL_TEST_BROKER = process.env.SHOAL_TEST_BROKER || 'none';

const { displayName: _name, ...unit } = projects.find((project) => project.displayName === 'unit');

module.exports = {
  ...unit,
  testMatch: ['<rootDir>/libs/{domain,contracts}/**/*.unit.spec.ts'],
  // Its second process replays with the code as written, never the mutant: it would judge every
  // replay mutant against the unmutated original rather than against what the specs say.
  testPathIgnorePatterns: ['/node_modules/', 'cross-process-replay'],
  setupFiles: ['<rootDir>/libs/testing/src/jest/mutation-setup.ts'],
};
