import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { RUNNABLE } from '../../apps/cli/src/main';
import { declaredSettings, shoalSettings } from '../../libs/config/src';
import type { ShoalProcess } from '../../libs/config/src';
import { serverProperties } from '../kafka/broker';
import { BROKER_IMAGE, DATA_FOLDERS, SHOAL_IMAGE, productionPackages } from './shoal-images';

// The image, the compose file and the systemd units held to the code they deploy: every component they start
// exists, every setting they pass is one the code reads, every agent flag is one the agent
// takes, every image is one `npm run images` makes (no registry answers where Shoal is
// tested). test/e2e/compose.e2e.spec.ts runs them on a real engine.
const ROOT = join(__dirname, '..', '..');
const composeText = readFileSync(join(__dirname, 'compose.yaml'), 'utf8');
const dockerfile = readFileSync(join(__dirname, 'Dockerfile'), 'utf8');

interface ComposeService {
  readonly image?: string;
  readonly build?: unknown;
  readonly command?: readonly string[];
  readonly entrypoint?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
  readonly ports?: readonly string[];
}
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown> };
const services = Object.entries(compose.services);
const shoalServices = services.filter(([, service]) => service.image === SHOAL_IMAGE);

const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
const code = [...sources(join(ROOT, 'apps')), ...sources(join(ROOT, 'libs'))].map((file) => readFileSync(file, 'utf8')).join('\n');
const agentCommand = readFileSync(join(ROOT, 'apps', 'agent', 'src', 'agent-command.ts'), 'utf8');

/** The `shoal agent …` lines of the compose file's agents. */
const agentLines = services.flatMap(([, service]) => (service.command ?? []).filter((line) => /\bshoal agent\b/.test(line)));

describe('infra/docker', () => {
  it('runs every component as `shoal run <component>`, and two agents as `shoal agent`', () => {
    const runs = shoalServices.flatMap(([, service]) => (service.command?.[0] === 'run' ? [service.command[1]!] : []));
    expect(new Set(runs)).toEqual(new Set(RUNNABLE));
    expect(agentLines).toHaveLength(2);
    expect(shoalServices.map(([name]) => name).filter((name) => name.startsWith('agent-'))).toEqual(['agent-1', 'agent-2']);
  });

  it('uses only the images `npm run images` makes, and builds none itself', () => {
    const images = new Set(services.map(([, service]) => service.image));
    expect(images).toEqual(new Set([SHOAL_IMAGE, BROKER_IMAGE]));
    for (const [, service] of services) expect(service.build).toBeUndefined();
    // The one base is the argument npm run images passes (shoal/base:node-<version>): nothing to pull.
    expect([...dockerfile.matchAll(/^FROM (.+)$/gm)].map((m) => m[1])).toEqual(['${BASE}']);
  });

  it('passes only settings the code reads', () => {
    const settings = new Set([...composeText.matchAll(/\b((?:SHOAL|KAFKA)_[A-Z_]+):/g)].map((m) => m[1]!));
    expect(settings.size).toBeGreaterThan(5);
    for (const name of settings) expect({ name, read: code.includes(name) }).toEqual({ name, read: true });
    for (const name of [...dockerfile.matchAll(/\b(SHOAL_[A-Z_]+)=/g)].map((m) => m[1]!)) expect({ name, read: code.includes(name) }).toEqual({ name, read: true });
  });

  it('gives the API and the dispatcher one cluster key for secrets and one root CA, on volumes only they mount', () => {
    const mounting = (volume: string): string[] => services.filter(([, service]) => (service.volumes ?? []).some((v) => v.startsWith(`${volume}:`))).map(([name]) => name).sort();
    for (const name of ['api', 'dispatcher']) {
      expect(compose.services[name]!.environment).toMatchObject({ SHOAL_SECRETS_KEY_FILE: '/var/lib/shoal/secrets/secrets.key', SHOAL_CA_DIR: '/var/lib/shoal/ca' });
      expect(compose.services[name]!.volumes).toEqual(expect.arrayContaining(['secrets-key:/var/lib/shoal/secrets', 'ca:/var/lib/shoal/ca']));
    }
    expect(mounting('secrets-key')).toEqual(['api', 'dispatcher']);
    expect(mounting('ca')).toEqual(['api', 'dispatcher']);
    // The API's data (its socket, the admin token) is the API's and the init service's only.
    expect(mounting('shoal-data')).toEqual(['api', 'init']);
  });

  it('joins both agents over mutual TLS, with flags the agent takes and a state directory of their own', () => {
    for (const line of agentLines) {
      const flags = [...line.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1]!);
      expect(flags).toEqual(expect.arrayContaining(['--tls', '--join-token', '--dispatcher', '--state-dir']));
      for (const flag of flags) expect({ flag, known: agentCommand.includes(`'${flag}`) }).toEqual({ flag, known: true });
      expect(line).toContain('--dispatcher dispatcher:2377');
    }
    expect(compose.services['agent-1']!.volumes).toEqual(['join:/var/lib/shoal/join:ro', 'agent-1:/var/lib/shoal/agent']);
    expect(compose.services['agent-2']!.volumes).toEqual(['join:/var/lib/shoal/join:ro', 'agent-2:/var/lib/shoal/agent']);
    // The init service writes the token where they read it.
    expect(compose.services.init!.entrypoint).toEqual(['node', '/opt/shoal/swarm-init.js', '/var/lib/shoal/shoal.sock', '/var/lib/shoal/join/worker.token']);
    for (const line of agentLines) expect(line).toContain('"$$(cat /var/lib/shoal/join/worker.token)"');
  });

  it('mounts volumes only on folders the image makes, owned by the user it runs as', () => {
    const mountPoints = services.flatMap(([, service]) => (service.volumes ?? []).map((v) => v.split(':')[1]!)).filter((path) => path.startsWith('/var/lib/shoal/'));
    for (const path of mountPoints) expect(DATA_FOLDERS).toContain(path.slice('/var/lib/shoal/'.length));
    expect(dockerfile).toMatch(/^COPY --chown=node:node var-lib-shoal \/var\/lib\/shoal\nUSER node$/m);
    // and the code keeps the components' snapshots where the volume is: <data dir>/snapshots/<component>
    expect(readFileSync(join(ROOT, 'libs', 'runtime', 'src', 'view-snapshots.ts'), 'utf8')).toContain("join(dataDir, 'snapshots', component)");
    expect(compose.volumes).toHaveProperty('snapshots');
  });

  it('builds the image from what npm run images puts in its context', () => {
    const copied = dockerfile
      .split('\n')
      .filter((line) => /^COPY /.test(line))
      .flatMap((line) => line.split(/\s+/).slice(1, -1).filter((word) => !word.startsWith('--')));
    expect(copied.sort()).toEqual(['dist', 'node_modules', 'package.json', 'shoal', 'swarm-init.js', 'var-lib-shoal']);
    const staging = readFileSync(join(__dirname, 'shoal-images.ts'), 'utf8');
    expect(staging).toContain("'infra/build/build.ts', '--out', join(dir, 'dist')");
    expect(dockerfile).toMatch(/^ENTRYPOINT \["shoal"\]$/m);
  });

  it('puts every dependency in the image, and none of the test and build tools', () => {
    const packages = productionPackages();
    const { dependencies } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
    for (const name of Object.keys(dependencies)) expect(packages).toContain(`node_modules/${name}`);
    for (const name of ['jest', 'eslint', '@stryker-mutator/core', 'puppeteer-core', 'testcontainers', 'dockerode', 'esbuild']) expect(packages).not.toContain(`node_modules/${name}`);
  }, 60_000);

  it("runs the broker with the tests' one-node settings, listening for the other containers", () => {
    const script = compose.services.kafka!.command!.join('\n');
    const written = new Set(/printf '%s\\n' ([^>]+)>\/tmp\/server\.properties/.exec(script)![1]!.split(/[\s\\]+/).filter(Boolean));
    const local = serverProperties(9092, 9093, '/var/kafka/data').split('\n').filter(Boolean);
    for (const line of local.filter((l) => !/^(listeners|advertised\.listeners)=/.test(l))) expect(written).toContain(line);
    expect(written).toContain('advertised.listeners=PLAINTEXT://kafka:9092');
  });

  it('publishes the API on loopback only', () => {
    const ports = services.flatMap(([, service]) => service.ports ?? []);
    expect(ports).toEqual(['127.0.0.1:${API_PUBLISHED_PORT:-8080}:8080']);
  });
});

/** A unit file as `section → [key, value][]`, in order (a key may repeat). */
const unitFile = (text: string): Map<string, [string, string][]> => {
  const sections = new Map<string, [string, string][]>();
  let section = '';
  for (const line of text.split('\n').map((l) => l.trim())) {
    if (line === '' || line.startsWith('#')) continue;
    const header = /^\[(\w+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      sections.set(section, []);
      continue;
    }
    const [key, ...value] = line.split('=');
    sections.get(section)!.push([key!, value.join('=')]);
  }
  return sections;
};
/** `KEY=value` lines of an environment file, commented-out examples included. */
const envFile = (text: string): [string, string][] =>
  text
    .split('\n')
    .map((line) => /^#?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line.trim()))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, m[2]!]);

describe('infra/systemd', () => {
  const SYSTEMD = join(ROOT, 'infra', 'systemd');
  const units = readdirSync(SYSTEMD).filter((name) => name.endsWith('.service')).sort();
  const unit = (name: string) => unitFile(readFileSync(join(SYSTEMD, `shoal-${name}.service`), 'utf8'));
  const value = (parsed: Map<string, [string, string][]>, section: string, key: string): string[] =>
    (parsed.get(section) ?? []).filter(([k]) => k === key).map(([, v]) => v);
  const CLI = '/usr/bin/node /opt/shoal/dist/apps/cli/main.js';

  it('has one unit per component and one for the agent, and a target that starts the components', () => {
    expect(units).toEqual([...RUNNABLE, 'agent'].map((name) => `shoal-${name}.service`).sort());
    const wants = value(unitFile(readFileSync(join(SYSTEMD, 'shoal.target'), 'utf8')), 'Unit', 'Wants').join(' ').split(/\s+/).sort();
    expect(wants).toEqual(RUNNABLE.map((name) => `shoal-${name}.service`).sort());
    for (const name of RUNNABLE) expect(value(unit(name), 'Install', 'WantedBy')).toEqual(['shoal.target']);
  });

  it('starts `shoal run <component>` and `shoal agent` from the compiled CLI, as npm run build writes it', () => {
    // infra/build writes dist/apps/<app>/main.js for every app with a src/main.ts.
    expect(existsSync(join(ROOT, 'apps', 'cli', 'src', 'main.ts'))).toBe(true);
    expect(readFileSync(join(ROOT, 'infra', 'build', 'build.ts'), 'utf8')).toContain("join(DIST, 'apps', app, 'main.js')");
    for (const name of RUNNABLE) expect(value(unit(name), 'Service', 'ExecStart')).toEqual([`${CLI} run ${name}`]);
    const [agent] = value(unit('agent'), 'Service', 'ExecStart');
    expect(agent).toMatch(new RegExp(`^${CLI.replace(/\./g, '\\.')} agent `));
    const flags = [...agent!.matchAll(/\s(--[a-z-]+)/g)].map((m) => m[1]!);
    expect(flags).toEqual(['--state-dir']);
    for (const flag of flags) expect({ flag, known: agentCommand.includes(`'${flag}`) }).toEqual({ flag, known: true });
    // The agent's state directory is the one systemd makes for it.
    expect(agent).toContain(`--state-dir /var/lib/${value(unit('agent'), 'Service', 'StateDirectory')[0]}`);
  });

  it('reads environment files that exist here, with settings the processes that read them declare, and valid values', () => {
    const readers = new Map<string, ShoalProcess[]>();
    for (const name of [...RUNNABLE, 'agent'] as const) {
      for (const file of value(unit(name), 'Service', 'EnvironmentFile')) {
        expect(file).toMatch(/^\/etc\/shoal\/[a-z]+\.env$/);
        readers.set(file.slice('/etc/shoal/'.length), [...(readers.get(file.slice('/etc/shoal/'.length)) ?? []), name]);
      }
    }
    expect([...readers.keys()].sort()).toEqual(['agent.env', 'shoal.env']);
    const declared = declaredSettings();
    for (const [file, processes] of readers) {
      const entries = envFile(readFileSync(join(SYSTEMD, file), 'utf8'));
      expect(entries.length).toBeGreaterThan(3);
      for (const [name] of entries) {
        const readBy = declared.get(name)?.readBy ?? [];
        // Every setting in the file is read by at least one process that loads it.
        expect({ file, name, readByOneOf: readBy.some((p) => processes.includes(p)) }).toEqual({ file, name, readByOneOf: true });
      }
      // The values (the examples uncommented too) are ones the settings accept.
      expect(() => shoalSettings(Object.fromEntries(entries))).not.toThrow();
    }
  });

  it('gives each component its own health port, and sets only settings they declare', () => {
    const ports = RUNNABLE.filter((name) => name !== 'api').map((name) => {
      const env = value(unit(name), 'Service', 'Environment').map((line) => line.split('='));
      for (const [key] of env) expect(declaredSettings().get(key!)?.readBy).toContain(name);
      return env.find(([key]) => key === 'SHOAL_HEALTH_PORT')?.[1];
    });
    expect(new Set(ports).size).toBe(ports.length);
    expect(ports.every((port) => /^\d+$/.test(port ?? ''))).toBe(true);
  });

  it('runs the components as the shoal user in the shared state directory the settings name', () => {
    const env = Object.fromEntries(envFile(readFileSync(join(SYSTEMD, 'shoal.env'), 'utf8')));
    for (const name of RUNNABLE) {
      expect(value(unit(name), 'Service', 'User')).toEqual(['shoal']);
      expect(`/var/lib/${value(unit(name), 'Service', 'StateDirectory')[0]}`).toBe(env.SHOAL_DATA_DIR);
    }
    // The CA and the secrets key are inside it, where ProtectSystem=strict still lets the units write.
    expect(env.SHOAL_CA_DIR!.startsWith(`${env.SHOAL_DATA_DIR}/`)).toBe(true);
    expect(env.SHOAL_SECRETS_KEY_FILE!.startsWith(`${env.SHOAL_DATA_DIR}/`)).toBe(true);
    expect(Object.fromEntries(envFile(readFileSync(join(SYSTEMD, 'agent.env'), 'utf8')))).toMatchObject({ SHOAL_DISPATCHER_TLS: '1' });
  });
});
