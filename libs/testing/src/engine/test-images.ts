/**
 * The images tests run, made offline on the engine (no registry answers here):
 *   shoal-test/busybox:latest — /bin/busybox (Debian's busybox-static) and a link per applet, `docker import`ed;
 *   shoal-test/web:latest     — that base with `httpd -f -p 80 -h /www` and an index page (infra/docker/web).
 * Each is built only when the engine does not have it yet.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engineDocker } from './engine-docker';

export const BUSYBOX_IMAGE = 'shoal-test/busybox:latest';
export const WEB_IMAGE = 'shoal-test/web:latest';
/** What shoal-test/web serves at `/`. */
export const WEB_INDEX_TEXT = 'shoal-test web';

const WEB_CONTEXT = join(__dirname, '..', '..', '..', '..', 'infra', 'docker', 'web');
const BUSYBOX = '/bin/busybox';

/** Does the engine at `host` hold `image`? */
export const hasImage = (host: string, image: string): boolean => {
  try {
    engineDocker(host, ['image', 'inspect', '--format', '{{.Id}}', image], 30_000);
    return true;
  } catch {
    return false;
  }
};

/** A rootfs tarball: bin/busybox and a symlink to it for every applet it lists. */
const busyboxRootfs = (): Buffer => {
  if (!existsSync(BUSYBOX)) throw new Error(`${BUSYBOX} not found: install busybox-static (bash infra/docker/install.sh)`);
  const applets = spawnSync(BUSYBOX, ['--list'], { encoding: 'utf8' });
  if (applets.status !== 0) throw new Error(`${BUSYBOX} --list failed: ${applets.stderr}`);
  const dir = mkdtempSync(join(tmpdir(), 'shoal-busybox-'));
  try {
    mkdirSync(join(dir, 'bin'));
    for (const folder of ['tmp', 'etc', 'root']) mkdirSync(join(dir, folder));
    copyFileSync(BUSYBOX, join(dir, 'bin', 'busybox'));
    for (const applet of applets.stdout.split('\n').map((name) => name.trim())) {
      if (applet && applet !== 'busybox') symlinkSync('busybox', join(dir, 'bin', applet));
    }
    const tar = spawnSync('tar', ['-C', dir, '-c', '.'], { maxBuffer: 64 * 1024 * 1024 });
    if (tar.status !== 0) throw new Error(`tar of the busybox rootfs failed: ${String(tar.stderr)}`);
    return tar.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

/** Builds the test images the engine at `host` lacks; returns the names it built. */
export const buildTestImages = (host: string): string[] => {
  const built: string[] = [];
  if (!hasImage(host, BUSYBOX_IMAGE)) {
    engineDocker(host, ['import', '--change', 'ENV PATH=/bin', '-', BUSYBOX_IMAGE], 120_000, { input: busyboxRootfs() });
    built.push(BUSYBOX_IMAGE);
  }
  if (!hasImage(host, WEB_IMAGE)) {
    engineDocker(host, ['build', '-q', '-t', WEB_IMAGE, '.'], 120_000, { cwd: WEB_CONTEXT });
    built.push(WEB_IMAGE);
  }
  return built;
};
