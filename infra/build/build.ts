/**
 * `npm run build [-- --out DIR]`: compiles apps/ and libs/ to dist/ (or DIR) with tsc (type-checked), copies the
 * files that are not TypeScript (the agent protocol's .proto), and writes one entry point
 * per app, dist/apps/<app>/main.js, which resolves the @shoal/* libraries inside dist/; and
 * the console's page and bundled script beside the compiled API.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { writeConsoleAssets } from '../../apps/api/src/console/console-bundle';

const ROOT = join(__dirname, '..', '..');
const out = process.argv.indexOf('--out');
const DIST = out > 0 && process.argv[out + 1] ? resolve(process.argv[out + 1]!) : join(ROOT, 'dist');
const SHOWN = DIST === join(ROOT, 'dist') ? 'dist' : DIST;
const ASSETS = /\.(proto)$/;

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', DIST], { stdio: 'inherit' });

for (const top of ['apps', 'libs']) {
  for (const file of walk(join(ROOT, top)).filter((path) => ASSETS.test(path))) {
    const target = join(DIST, relative(ROOT, file));
    mkdirSync(join(target, '..'), { recursive: true });
    cpSync(file, target);
  }
}

writeFileSync(
  join(DIST, 'resolve-libs.js'),
  `// Resolves @shoal/<lib> to dist/libs/<lib>/src, as tsconfig.json's paths do for the sources.
const Module = require('module');
const path = require('path');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@shoal\\/([a-z-]+)$/.exec(request);
  return resolve.call(this, lib ? path.join(__dirname, 'libs', lib[1], 'src') : request, ...rest);
};
`,
);

const apps = readdirSync(join(ROOT, 'apps')).filter((app) => existsSync(join(DIST, 'apps', app, 'src', 'main.js')));
for (const app of apps) {
  // An app either starts when loaded (the components) or exports runMain (the CLI).
  writeFileSync(
    join(DIST, 'apps', app, 'main.js'),
    `require('../../resolve-libs.js');\nconst app = require('./src/main.js');\nif (typeof app.runMain === 'function') app.runMain(process.argv);\n`,
  );
}
// The console's page and script, bundled now: a deployment has neither their sources nor esbuild.
void writeConsoleAssets(join(DIST, 'apps', 'api', 'src', 'console', 'web')).then(
  () => process.stdout.write(`built ${apps.map((app) => `${SHOWN}/apps/${app}/main.js`).join(', ')} and the console\n`),
  (error: unknown) => {
    process.stderr.write(`the console could not be bundled: ${(error as Error).message}\n`);
    process.exitCode = 1;
  },
);
