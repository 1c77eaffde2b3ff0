// Runs Shoal's TypeScript sources directly: swc compiles each file on load,
// keeping decorator metadata (Nest needs it) and the @shoal/* path aliases.
process.env.TS_NODE_PROJECT = process.env.TS_NODE_PROJECT || require('path').join(__dirname, '..', 'tsconfig.json');
require('@swc-node/register');
