/**
 * The console's page, script and style. The script is the TypeScript in web/, bundled by
 * esbuild into one file (no framework, nothing loaded from elsewhere), in memory, the first
 * time the console is asked for: always from the sources beside it, so never stale, and
 * nothing written to disk. The same sources give the same bytes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type * as Esbuild from 'esbuild';

export interface ConsoleAssets {
  readonly html: string;
  readonly js: string;
  readonly css: string;
}

export const WEB_DIR = join(__dirname, 'web');

/** Bundles web/main.ts and reads the page and style. */
export const buildConsoleAssets = async (webDir = WEB_DIR): Promise<ConsoleAssets> => {
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
  const [html, css] = await Promise.all([readFile(join(webDir, 'index.html'), 'utf8'), readFile(join(webDir, 'console.css'), 'utf8')]);
  return { html, js: result.outputFiles[0]!.text, css };
};
