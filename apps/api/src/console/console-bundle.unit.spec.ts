import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WEB_DIR, buildConsoleAssets, writeConsoleAssets } from './console-bundle';

describe('the console bundle', () => {
  it('bundles the same sources into the same bytes', async () => {
    const [one, two] = await Promise.all([buildConsoleAssets(), buildConsoleAssets()]);
    expect(one.js).toBe(two.js);
    expect(one.js.length).toBeGreaterThan(1_000);
    expect(one.js).not.toContain(WEB_DIR);
  });

  it('writes a build of the console that serves without the sources or the bundler', async () => {
    const out = await mkdtemp(join(tmpdir(), 'shoal-console-'));
    try {
      await writeConsoleAssets(out);
      const fromSources = await buildConsoleAssets();
      expect(await readFile(join(out, 'console.js'), 'utf8')).toBe(fromSources.js);
      // What the build wrote is what is served from there, even when it differs from the sources.
      await writeFile(join(out, 'console.js'), '/* built */');
      expect(await buildConsoleAssets(out)).toEqual({ html: fromSources.html, css: fromSources.css, js: '/* built */' });
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  });

  it('says where it looked when there is neither', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'shoal-console-'));
    try {
      await expect(buildConsoleAssets(empty)).rejects.toThrow(`neither the console's sources nor a build of them are in ${empty}`);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });
});
