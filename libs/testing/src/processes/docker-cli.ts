/**
 * The real docker CLI against Shoal's Docker API, as a user at `home` runs it: a config
 * directory of its own, DOCKER_HOST the API's socket in `home` (shoal.sock) — or, with
 * `tcp`, the API's TCP port with the admin token as a bearer header — and nothing else of
 * this process's environment but PATH.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DockerCliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface DockerCliOptions {
  /** Over TCP on 127.0.0.1:port with this admin token, not over the socket. */
  readonly tcp?: { readonly port: number; readonly token: string };
  /** How long the command may run (default one minute). */
  readonly timeoutMs?: number;
}

/** Runs `docker <args>`; resolves with its exit code and output, whatever the code. */
export const dockerCli = (home: string, args: readonly string[], options: DockerCliOptions = {}): Promise<DockerCliResult> => {
  const { tcp, timeoutMs = 60_000 } = options;
  const config = join(home, tcp ? 'docker-tcp' : 'docker-socket');
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, 'config.json'), JSON.stringify(tcp ? { HttpHeaders: { Authorization: `Bearer ${tcp.token}` } } : {}));
  const host = tcp ? `tcp://127.0.0.1:${tcp.port}` : `unix://${join(home, 'shoal.sock')}`;
  return new Promise((resolve) => {
    execFile('docker', [...args], { env: { PATH: process.env.PATH, HOME: home, DOCKER_CONFIG: config, DOCKER_HOST: host }, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
};

/** Runs `docker <args>` and resolves with its output; a non-zero exit is an error with the command and what it said. */
export const dockerCliOk = async (home: string, args: readonly string[], options: DockerCliOptions = {}): Promise<string> => {
  const result = await dockerCli(home, args, options);
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${result.stderr}\n${result.stdout}`);
  return result.stdout;
};
