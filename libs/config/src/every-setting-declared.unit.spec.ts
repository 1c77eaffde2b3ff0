import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { declaredSettings } from './setting';
import { settingsTable } from './settings-table';

// Nothing escapes the declaration: every variable named in the sources is declared, no
// source outside libs/config reads one itself, and docs/configuration.md lists exactly them.
const root = join(__dirname, '..', '..', '..');

/** Names in the sources that look like settings and are not: constants, and what Shoal sets for a task. */
const NOT_SETTINGS = new Set(['SHOAL_VERSION', 'SHOAL_PATHS', 'SHOAL_CONFIG', 'SHOAL_SETTINGS', 'SHOAL_TASK_ROOT']);

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' || entry.name === 'node_modules' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') ? [path] : [];
  });

const files = [...sources(join(root, 'apps')), ...sources(join(root, 'libs'))].map((path) => ({ path: relative(root, path), text: readFileSync(path, 'utf8') }));
const declared = [...declaredSettings().keys()];

describe('every setting is declared in @shoal/config', () => {
  it('declares every variable the sources name (a name ending in _ is a family: SHOAL_KAFKA_SSL_*)', () => {
    const undeclared = new Set<string>();
    for (const { path, text } of files) {
      for (const [name] of text.matchAll(/\b(SHOAL_[A-Z0-9_]+|OTEL_[A-Z0-9_]+|KAFKA_BROKERS)\b/g)) {
        const known = name.endsWith('_') ? declared.some((setting) => setting.startsWith(name)) : declared.includes(name) || NOT_SETTINGS.has(name);
        if (!known) undeclared.add(`${name} (${path})`);
      }
    }
    expect([...undeclared]).toEqual([]);
  });

  it('declares nothing no process names (each setting is used where it is read)', () => {
    const named = new Set(files.filter(({ path }) => !path.startsWith('libs/config/')).flatMap(({ text }) => [...text.matchAll(/\b(SHOAL_[A-Z0-9_]+|OTEL_[A-Z0-9_]+|KAFKA_BROKERS)\b/g)].map((match) => match[1])));
    expect(declared.filter((setting) => !named.has(setting))).toEqual([]);
  });

  it('leaves reading them to the declaration: no source outside libs/config takes one from an environment', () => {
    const reads = files
      .filter(({ path }) => !path.startsWith('libs/config/'))
      .flatMap(({ path, text }) => [...text.matchAll(/\benv\??\.(SHOAL_[A-Z0-9_]+|OTEL_[A-Z0-9_]+|KAFKA_BROKERS)\b(?!\s*=[^=])|\benv\[['"`](SHOAL_|OTEL_|KAFKA_BROKERS)/g)].map((match) => `${path}: ${match[0]}`));
    expect(reads).toEqual([]);
  });

  it('lists every declared variable once in docs/configuration.md, as the declaration says it', () => {
    const doc = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    const listed = [...doc.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map((match) => match[1]);
    expect(listed).toEqual(declared);
    // A change to a setting's default, meaning or readers changes this table: paste it into the doc.
    expect(doc).toContain(settingsTable());
  });
});
