/**
 * `npm run engine:images`: makes the offline images Shoal's tests and its quick start run,
 * shoal-test/busybox and shoal-test/web, on the Docker engine at SHOAL_ENGINE (or
 * DOCKER_HOST, or the usual socket). No registry is needed; an image the engine has is kept.
 */
import { buildTestImages, BUSYBOX_IMAGE, WEB_IMAGE } from '@shoal/testing';

const DEFAULT_ENGINE = 'unix:///var/run/docker.sock';

const main = (): void => {
  const engine = process.env.SHOAL_ENGINE || process.env.DOCKER_HOST || DEFAULT_ENGINE;
  const built = buildTestImages(engine);
  const kept = [BUSYBOX_IMAGE, WEB_IMAGE].filter((image) => !built.includes(image));
  for (const image of built) process.stdout.write(`built ${image} on ${engine}\n`);
  for (const image of kept) process.stdout.write(`${image} already on ${engine}\n`);
};

try {
  main();
} catch (error) {
  process.stderr.write(`engine:images: ${error instanceof Error ? error.message : String(error)}\n` +
    'start a Docker engine first (bash infra/docker/install.sh, then dockerd as root), or name it with SHOAL_ENGINE=unix:///path/to/docker.sock\n');
  process.exitCode = 1;
}
