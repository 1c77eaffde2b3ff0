/**
 * How a benchmark starts Shoal's processes: from apps and libs compiled with tsc into a
 * directory of the benchmark's own (no TypeScript compiled at run time, and the shared
 * dist/ left alone), or from the sources through bin/shoal with --sources.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/** The node arguments that run `shoal <args…>`: prefix them to the command's own arguments. */
export interface ShoalEntry {
  readonly description: string;
  /** node's arguments for `shoal`, then any node flags in `flags` first. */
  argv(args: readonly string[], flags?: readonly string[]): string[];
}

const walk = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });

const RESOLVE_LIBS = `// Resolves @shoal/<lib> to libs/<lib>/src beside this file.
const Module = require('module');
const path = require('path');
const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const lib = /^@shoal\\/([a-z-]+)$/.exec(request);
  return resolve.call(this, lib ? path.join(__dirname, 'libs', lib[1], 'src') : request, ...rest);
};
`;

/** Compiles apps/ and libs/ (tsconfig.build.json) into `out`, with the .proto files and a resolver of @shoal/*. */
export const compileShoal = (out: string): void => {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  try {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', out], { cwd: ROOT, stdio: 'pipe' });
  } catch (error) {
    // tsc still emits when a file in progress does not typecheck; the benchmark runs what was emitted.
    const stdout = (error as { stdout?: Buffer }).stdout?.toString() ?? '';
    if (!existsSync(join(out, 'apps', 'cli', 'src', 'main.js'))) throw new Error(`tsc emitted nothing:\n${stdout}`);
    process.stderr.write(`tsc reported errors (the emitted code is used anyway):\n${stdout.split('\n').slice(0, 10).join('\n')}\n`);
  }
  for (const top of ['apps', 'libs']) {
    for (const file of walk(join(ROOT, top)).filter((path) => path.endsWith('.proto'))) {
      const target = join(out, relative(ROOT, file));
      mkdirSync(join(target, '..'), { recursive: true });
      cpSync(file, target);
    }
  }
  writeFileSync(join(out, 'resolve-libs.js'), RESOLVE_LIBS);
};

/**
 * `--sources`: bin/shoal from the TypeScript sources. Otherwise the compiled CLI in
 * `--dist DIR` (default: .shoal/bench-dist, ignored by git), compiled first unless
 * `--no-build` is given and it is already there.
 */
export const shoalEntry = (argv: readonly string[]): ShoalEntry => {
  if (argv.includes('--sources')) {
    return { description: 'bin/shoal (sources, compiled on load)', argv: (args, flags = []) => [...flags, join(ROOT, 'bin', 'shoal'), ...args] };
  }
  const at = argv.indexOf('--dist');
  const out = at >= 0 && argv[at + 1] ? argv[at + 1]! : join(ROOT, '.shoal', 'bench-dist');
  if (!(argv.includes('--no-build') && existsSync(join(out, 'resolve-libs.js')))) {
    process.stderr.write(`compiling Shoal into ${out}…\n`);
    compileShoal(out);
  }
  const cli = join(out, 'apps', 'cli', 'src', 'main.js');
  return { description: `compiled (${relative(ROOT, out) || out})`, argv: (args, flags = []) => [...flags, '-r', join(out, 'resolve-libs.js'), cli, ...args] };
};
