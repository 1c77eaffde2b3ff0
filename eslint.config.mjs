// Lint keeps the layering honest: libs/contracts and libs/domain are the pure core, and
// libs/docker-api (Docker's API mapped onto it) is as pure: they may not import Nest,
// kafkajs, Node's built-ins or the impure libraries. Import cycles are
// refused by dependency-cruiser (.dependency-cruiser.js), the other half of `npm run lint`.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const impure = {
  paths: [
    ...builtinModules.map((name) => ({ name, message: 'The core is pure: no Node built-ins (do I/O in apps/ or libs/eventlog|runtime).' })),
    { name: 'kafkajs', message: 'The core is pure: Kafka belongs to libs/eventlog.' },
    { name: '@shoal/eventlog', message: 'The core may not depend on the event log adapters.' },
    { name: '@shoal/runtime', message: 'The core may not depend on the runtime.' },
    { name: '@shoal/protocol', message: 'The core may not depend on the agent protocol (gRPC).' },
  ],
  patterns: [
    { group: ['node:*'], message: 'The core is pure: no Node built-ins.' },
    { group: ['@nestjs/*'], message: 'The core is pure: Nest stays in the shells (apps/, libs/eventlog|runtime).' },
  ],
};

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.shoal/**', '.cache/**', 'coverage/**', 'bin/**', '*.config.js', '.stryker-tmp/**', 'reports/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    // The few CommonJS glue files (jest's global setup) run in Node as they are.
    files: ['**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', module: 'writable', process: 'readonly', globalThis: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'separate-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['libs/contracts/src/**/*.ts', 'libs/domain/src/**/*.ts', 'libs/docker-api/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': ['error', impure],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['libs/contracts/src/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { ...impure, paths: [...impure.paths, { name: '@shoal/domain', message: 'Contracts stand alone: the domain builds on them, not the reverse.' }] },
      ],
    },
  },
);
