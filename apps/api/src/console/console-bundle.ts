/**
 * The console's page, script and style. The script is the TypeScript in web/, bundled by
 * esbuild into one file (no framework, nothing loaded from elsewhere), in memory, the first
 * time the console is asked for: always from the sources beside it, so never stale, and
 * nothing written to disk. The same sources give the same bytes.
 *
 * A compiled build (`npm run build`) has no sources and, once pruned, no esbuild: it writes
 * the three files into dist/ beside the compiled console (`writeConsoleAssets`), and the API
 * serves those when it finds them.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Esbuild from 'esbuild';

export interface ConsoleAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

export const WEB_DIR = join(__dirname, 'web');

const FILES = { html: 'index.html', js: 'console.js', css: 'console.css' } as const;

/** The script bundled from web/main.ts. */
const bundle = async (webDir: string): Promise<string> => {
  let esbuild: typeof Esbuild;
  try {
    esbuild = await import('esbuild');
  } catch (error) {
    throw new Error(`the console's bundler (esbuild, a dev dependency) is not installed here: run npm install (${(error as Error).message})`);
  }
  const result = await esbuild.build({
    absWorkingDir: webDir,
    entryPoints: [join(webDir, 'main.ts')],
    tsconfig: join(webDir, 'tsconfig.json'),
    bundle: true,
    write: false,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    charset: 'utf8',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
};

/** The page, script and style: a build's copy when there is one in `webDir`, else bundled from the sources there. */
export const buildConsoleAssets = async (webDir = WEB_DIR): Promise<ConsoleAssets> => {
  const built = existsSync(join(webDir, FILES.js));
  if (!built && !existsSync(join(webDir, 'main.ts'))) throw new Error(`neither the console's sources nor a build of them are in ${webDir}`);
  const [html, css, js] = await Promise.all([
    readFile(join(webDir, FILES.html), 'utf8'),
    readFile(join(webDir, FILES.css), 'utf8'),
    built ? readFile(join(webDir, FILES.js), 'utf8') : bundle(webDir),
  ]);
  return { html, js, css };
};

/** Writes the page, the bundled script and the style into `outDir` (a compiled build's console/web). */
export const writeConsoleAssets = async (outDir: string, webDir = WEB_DIR): Promise<void> => {
  const assets = await buildConsoleAssets(webDir);
  await mkdir(outDir, { recursive: true });
  await Promise.all((Object.keys(FILES) as (keyof typeof FILES)[]).map((key) => writeFile(join(outDir, FILES[key]), assets[key])));
};
