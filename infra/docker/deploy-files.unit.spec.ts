import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

// No Docker engine runs here, so the image and the compose file are checked against the
// code they deploy: every app they start exists, every setting they pass is one the code
// reads, every agent flag is one the agent takes.
const ROOT = join(__dirname, '..', '..');
const compose = readFileSync(join(__dirname, 'compose.yaml'), 'utf8');
const dockerfile = readFileSync(join(__dirname, 'Dockerfile'), 'utf8');

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
const code = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].map((file) => readFileSync(file, 'utf8')).join('\n');

describe('infra/docker', () => {
  it('starts only apps that exist, each as dist/apps/<app>/main.js', () => {
    const apps = [...compose.matchAll(/dist\/apps\/([a-z-]+)\/main\.js/g)].map((m) => m[1]!);
    expect(new Set(apps)).toEqual(new Set(['api', 'allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher', 'agent']));
    for (const app of apps) expect(existsSync(join(ROOT, 'apps', app, 'src', 'main.ts'))).toBe(true);
  });

  it('passes only settings the code reads', () => {
    const settings = new Set([...compose.matchAll(/\b((?:SHOAL|KAFKA)_[A-Z_]+):/g)].map((m) => m[1]!));
    expect(settings.size).toBeGreaterThan(5);
    for (const name of settings) {
      if (name.startsWith('KAFKA_') && name !== 'KAFKA_BROKERS') continue; // the Kafka image's own settings
      expect({ name, read: code.includes(name) }).toEqual({ name, read: true });
    }
    for (const name of [...dockerfile.matchAll(/\b(SHOAL_[A-Z_]+)=/g)].map((m) => m[1]!)) expect({ name, read: code.includes(name) }).toEqual({ name, read: true });
  });

  it('gives the API and the dispatcher one cluster key for secrets, on a volume only they mount', () => {
    const service = (name: string): string => compose.split(/\n(?= {2}[a-z]+:\n)/).find((part) => part.startsWith(`  ${name}:\n`))!;
    for (const name of ['api', 'dispatcher']) {
      expect(service(name)).toContain('SHOAL_SECRETS_KEY_FILE: /var/lib/shoal/secrets/secrets.key');
      expect(service(name)).toContain('- secrets-key:/var/lib/shoal/secrets');
    }
    expect([...compose.matchAll(/- secrets-key:/g)]).toHaveLength(2);
  });

  it("gives the agent only flags it takes", () => {
    const agent = readFileSync(join(ROOT, 'apps', 'agent', 'src', 'agent-command.ts'), 'utf8');
    const line = compose.split('\n').find((l) => l.includes('dist/apps/agent/main.js'))!;
    const flags = [...line.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1]!);
    expect(flags).toEqual(expect.arrayContaining(['--simulate', '--join-token']));
    for (const flag of flags) expect({ flag, known: agent.includes(`'${flag}`) }).toEqual({ flag, known: true });
  });

  it('keeps every component\'s snapshots on a volume the image lets its user write', () => {
    // x-component (every component but the API), the API and the dispatcher (which lists its volumes) mount the one volume there.
    const mounts = [...compose.matchAll(/^\s+- snapshots:(\S+)$/gm)].map((m) => m[1]);
    expect(mounts).toEqual(['/var/lib/shoal/snapshots', '/var/lib/shoal/snapshots', '/var/lib/shoal/snapshots']);
    expect(compose).toMatch(/^x-component: &component\n(?: {2}.*\n)* {2}volumes:\n {4}- snapshots:\/var\/lib\/shoal\/snapshots$/m);
    expect(compose).toMatch(/^volumes:\n(?: {2}.*\n)* {2}snapshots:$/m);
    expect(dockerfile).toMatch(/mkdir -p \/var\/lib\/shoal\/snapshots \/var\/lib\/shoal\/secrets && chown -R node:node \/var\/lib\/shoal\nUSER node/);
    // and the code keeps them where the volume is: <data dir>/snapshots/<component>
    expect(readFileSync(join(ROOT, 'libs', 'runtime', 'src', 'view-snapshots.ts'), 'utf8')).toContain("join(dataDir, 'snapshots', component)");
  });

  it('builds the image from what the build needs', () => {
    // The sources of every COPY from the build context (not --from=<stage>).
    const copied = dockerfile
      .split('\n')
      .filter((line) => /^COPY (?!--from)/.test(line))
      .flatMap((line) => line.split(/\s+/).slice(1, -1));
    for (const path of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'apps', 'libs', 'infra/build', 'bin']) {
      expect(copied).toContain(path);
      expect(existsSync(join(ROOT, path))).toBe(true);
    }
    expect(dockerfile).toMatch(/npm run build/);
  });
});
