/**
 * Schemathesis (PyPI), pinned, in a virtualenv under the repository's .cache/: installed
 * there on first use, so a fresh clone needs only python3 with venv and a reachable PyPI.
 * When it cannot be installed the caller is told what to install, never left to skip.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

export const SCHEMATHESIS_VERSION = '4.32.5';

const ROOT = join(__dirname, '..', '..', '..', '..');
const VENV = join(ROOT, '.cache', 'schemathesis');

/** The installed version, or undefined when the venv has none that runs. */
const installedVersion = (cli: string): string | undefined => {
  if (!existsSync(cli)) return undefined;
  try {
    return execFileSync(cli, ['--version'], { encoding: 'utf8' }).match(/version (\S+)/)?.[1];
  } catch {
    return undefined;
  }
};

/** The path of the pinned `st` command, installing it into .cache/schemathesis when it is not there yet. */
export const ensureSchemathesis = (): string => {
  const cli = join(VENV, 'bin', 'st');
  if (installedVersion(cli) === SCHEMATHESIS_VERSION) return cli;
  try {
    execFileSync('python3', ['-m', 'venv', VENV], { stdio: 'pipe' });
    execFileSync(join(VENV, 'bin', 'pip'), ['install', '--quiet', `schemathesis==${SCHEMATHESIS_VERSION}`], { stdio: 'pipe', timeout: 600_000 });
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(
      `schemathesis ${SCHEMATHESIS_VERSION} could not be installed into ${VENV} (${detail.split('\n')[0]}). ` +
        `Install it there: python3 -m venv ${VENV} && ${join(VENV, 'bin', 'pip')} install schemathesis==${SCHEMATHESIS_VERSION} ` +
        '(python3 with its venv module, e.g. the python3-venv package, and a reachable PyPI)',
    );
  }
  const installed = installedVersion(cli);
  if (installed !== SCHEMATHESIS_VERSION) throw new Error(`${cli} reports version ${installed ?? 'none'} after installing schemathesis==${SCHEMATHESIS_VERSION}`);
  return cli;
};
