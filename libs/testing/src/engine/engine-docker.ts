/**
 * The docker CLI against a test engine, for setting it up (swarm init, images): DOCKER_HOST
 * that engine, a config folder of its own, the classic builder (no buildx needed), and
 * nothing else of this process's docker settings.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface EngineDockerOptions {
  /** Bytes for its stdin (`docker import -`). */
  readonly input?: Buffer;
  /** The folder it runs in. */
  readonly cwd?: string;
}

/** Runs `docker <args>` against `host` and returns its stdout; a non-zero exit throws with what it said. */
export const engineDocker = (host: string, args: readonly string[], timeoutMs = 120_000, options: EngineDockerOptions = {}): string => {
  const config = mkdtempSync(join(tmpdir(), 'shoal-docker-config-'));
  try {
    const result = spawnSync('docker', [...args], {
      encoding: 'utf8',
      timeout: timeoutMs,
      maxBuffer: 64 * 1024 * 1024,
      ...(options.input ? { input: options.input } : {}),
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: config, DOCKER_CONFIG: config, DOCKER_HOST: host, DOCKER_BUILDKIT: '0', DOCKER_CLI_HINTS: 'false' },
    });
    if (result.error || result.status !== 0) {
      const said = [result.stderr, result.stdout, result.error?.message].filter(Boolean).join('\n').trim();
      throw new Error(`docker ${args.join(' ')} (DOCKER_HOST=${host}) failed (${String(result.status ?? result.signal)}): ${said}`);
    }
    return result.stdout;
  } finally {
    rmSync(config, { recursive: true, force: true });
  }
};
