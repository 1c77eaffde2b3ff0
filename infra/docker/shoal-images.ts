/**
 * `npm run images`: Shoal's images, made offline on the Docker engine at SHOAL_ENGINE (or
 * DOCKER_HOST, or the usual socket), for the compose file and anyone who runs Shoal in
 * containers:
 *   shoal/base:node-<version> — this machine's node, its shared libraries, busybox and the CA
 *                               bundle, `docker import`ed (base-image.sh);
 *   shoal:latest              — on that base (Dockerfile): `npm run build`'s output and the
 *                               production node_modules; `shoal <command>` is its entry point;
 *   shoal/kafka:<version>     — the broker (kafka-image.sh: this machine's JRE and the Kafka jars).
 * Quick on a rerun: shoal:latest carries a digest of what it was built from (the sources, the
 * lockfile, the Dockerfile, the base) and is built again only when that changes; the base and
 * the broker only when the engine lacks them.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { KAFKA_VERSION } from '../kafka/broker';
import { buildKafkaImage, KAFKA_IMAGE } from '../../libs/testing/src/broker/kafka-container';
import { engineDocker } from '../../libs/testing/src/engine/engine-docker';
import { hasImage } from '../../libs/testing/src/engine/test-images';

const ROOT = join(__dirname, '..', '..');
export const SHOAL_IMAGE = 'shoal:latest';
export const BROKER_IMAGE = `shoal/kafka:${KAFKA_VERSION}`;
/** The label shoal:latest keeps the digest of its inputs in. */
export const SOURCES_LABEL = 'org.shoal.sources';
const FIVE_MINUTES = 5 * 60_000;
/** The folders of the image's data directory, /var/lib/shoal, where the compose file mounts volumes. */
export const DATA_FOLDERS = ['snapshots', 'secrets', 'ca', 'join', 'agent'] as const;

/** The base image for the node that runs this process. */
export const baseImage = (node = process.execPath): string => {
  const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim().replace(/^v/, '');
  return `shoal/base:node-${version}`;
};

/** What shoal:latest is built from, as files under the repo root (specs left out: they are not built). */
const inputs = (): string[] => {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : walk(path);
      return /\.spec\.ts$/.test(name) ? [] : [path];
    });
  const files = ['apps', 'libs', 'infra/build'].flatMap((dir) => walk(join(ROOT, dir)));
  files.push(...['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'infra/docker/Dockerfile', 'infra/docker/swarm-init.js'].map((file) => join(ROOT, file)));
  return files.sort();
};

/** A digest of the inputs and of the base image they go on. */
export const sourcesDigest = (baseId: string): string => {
  const hash = createHash('sha256').update(baseId);
  for (const file of inputs()) hash.update(relative(ROOT, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
};

const imageLabel = (host: string, image: string, label: string): string | undefined => {
  if (!hasImage(host, image)) return undefined;
  return engineDocker(host, ['image', 'inspect', '--format', `{{ index .Config.Labels "${label}" }}`, image]).trim() || undefined;
};

const run = (command: string, args: readonly string[], env: NodeJS.ProcessEnv, what: string): string => {
  const result = spawnSync(command, [...args], { cwd: ROOT, encoding: 'utf8', timeout: FIVE_MINUTES, maxBuffer: 64 * 1024 * 1024, env });
  if (result.error || result.status !== 0) {
    throw new Error(`${what} failed (${String(result.status ?? result.signal)}): ${[result.stderr, result.stdout, result.error?.message].filter(Boolean).join('\n').trim()}`);
  }
  return result.stdout;
};

/** The packages `npm ls --omit=dev` lists at the top of node_modules (each with whatever it nests). */
export const productionPackages = (): string[] => {
  // npm ls exits non-zero on a peer dependency it finds wanting, yet lists the tree: read what it printed.
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8', timeout: FIVE_MINUTES, maxBuffer: 64 * 1024 * 1024 });
  const top = listed.stdout
    .split('\n')
    .map((line) => relative(ROOT, line.trim()))
    .filter((path) => /^node_modules\/(@[^/]+\/)?[^/@]+$/.test(path));
  if (top.length === 0) throw new Error(`npm ls --omit=dev listed no packages: ${listed.stderr}`);
  return [...new Set(top)].sort();
};

/** Builds the build context of shoal:latest in `dir`: the Dockerfile, dist/, package.json, production node_modules, the `shoal` command. */
const stageContext = (dir: string): void => {
  run(process.execPath, ['-r', './bin/register.js', 'infra/build/build.ts', '--out', join(dir, 'dist')], process.env, 'npm run build');
  for (const path of productionPackages()) cpSync(join(ROOT, path), join(dir, path), { recursive: true, verbatimSymlinks: true });
  cpSync(join(ROOT, 'package.json'), join(dir, 'package.json'));
  for (const file of ['Dockerfile', 'swarm-init.js']) cpSync(join(__dirname, file), join(dir, file));
  writeFileSync(join(dir, 'shoal'), '#!/bin/sh\nexec node /opt/shoal/dist/apps/cli/main.js "$@"\n', { mode: 0o755 });
  // The data directory and the folders volumes are mounted on, owned by the user the image runs as.
  for (const folder of DATA_FOLDERS) mkdirSync(join(dir, 'var-lib-shoal', folder), { recursive: true });
};

export interface BuiltImages {
  /** The images this call built (the others the engine had already). */
  readonly built: string[];
}

/** Builds the base, shoal:latest and the broker on the engine at `host`, each only when needed. */
export const buildShoalImages = (host: string, log: (line: string) => void = () => undefined): BuiltImages => {
  const built: string[] = [];
  const base = baseImage();
  if (!hasImage(host, base)) {
    run('bash', [join(__dirname, 'base-image.sh'), base, process.execPath], { ...process.env, DOCKER_HOST: host }, `infra/docker/base-image.sh ${base}`);
    built.push(base);
    log(`built ${base}`);
  }
  const baseId = engineDocker(host, ['image', 'inspect', '--format', '{{.Id}}', base]).trim();
  const digest = sourcesDigest(baseId);
  if (imageLabel(host, SHOAL_IMAGE, SOURCES_LABEL) !== digest) {
    const previous = hasImage(host, SHOAL_IMAGE) ? engineDocker(host, ['image', 'inspect', '--format', '{{.Id}}', SHOAL_IMAGE]).trim() : undefined;
    const context = mkdtempSync(join(tmpdir(), 'shoal-image-'));
    try {
      log('npm run build and the production node_modules …');
      stageContext(context);
      engineDocker(host, ['build', '-q', '--build-arg', `BASE=${base}`, '--label', `${SOURCES_LABEL}=${digest}`, '-t', SHOAL_IMAGE, '.'], FIVE_MINUTES, { cwd: context });
      built.push(SHOAL_IMAGE);
      log(`built ${SHOAL_IMAGE}`);
      // The image it replaces, unless a container still uses it.
      if (previous) spawnSync('docker', ['image', 'rm', previous], { env: { ...process.env, DOCKER_HOST: host }, stdio: 'ignore', timeout: 60_000 });
    } finally {
      rmSync(context, { recursive: true, force: true });
    }
  }
  if (!hasImage(host, BROKER_IMAGE)) {
    if (buildKafkaImage(host)) built.push(KAFKA_IMAGE);
    engineDocker(host, ['tag', KAFKA_IMAGE, BROKER_IMAGE]);
    built.push(BROKER_IMAGE);
    log(`built ${BROKER_IMAGE}`);
  }
  return { built };
};

const DEFAULT_ENGINE = 'unix:///var/run/docker.sock';

if (require.main === module) {
  const engine = process.env.SHOAL_ENGINE || process.env.DOCKER_HOST || DEFAULT_ENGINE;
  try {
    const { built } = buildShoalImages(engine, (line) => process.stdout.write(`${line}\n`));
    for (const image of [baseImage(), SHOAL_IMAGE, BROKER_IMAGE].filter((name) => !built.includes(name))) process.stdout.write(`${image} already on ${engine}\n`);
  } catch (error) {
    process.stderr.write(`images: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
