/**
 * The real docker CLI against Shoal's Docker API, as a user at `home` runs it: a config
 * directory of its own, DOCKER_HOST the API's socket (shoal.sock in `home` unless told) —
 * or, with `tcp`, the API's TCP port with a token as a bearer header — and nothing else of
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
  /** The API's unix socket (default `<home>/shoal.sock`). */
  readonly socket?: string;
  /** Over TCP on 127.0.0.1:port with this token, not over the socket. */
  readonly tcp?: { readonly port: number; readonly token: string };
  /** How long the command may run (default one minute). */
  readonly timeoutMs?: number;
  /** What the command reads on its standard input (`docker swarm unlock` reads the key there when it is no terminal). */
  readonly input?: string;
}

/** Runs `docker <args>`; resolves with its exit code and output, whatever the code. */
export const dockerCli = (home: string, args: readonly string[], options: DockerCliOptions = {}): Promise<DockerCliResult> => {
  const { socket = join(home, 'shoal.sock'), tcp, timeoutMs = 60_000, input } = options;
  const config = join(home, tcp ? `docker-config-${tcp.token.slice(0, 8)}` : 'docker-config');
  mkdirSync(config, { recursive: true });
  writeFileSync(join(config, 'config.json'), JSON.stringify(tcp ? { HttpHeaders: { Authorization: `Bearer ${tcp.token}` } } : {}));
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    DOCKER_CONFIG: config,
    DOCKER_HOST: tcp ? `tcp://127.0.0.1:${tcp.port}` : `unix://${socket}`,
    DOCKER_CLI_HINTS: 'false',
  };
  return new Promise((resolve) => {
    const child = execFile('docker', [...args], { env, timeout: timeoutMs }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
};

/** The output of `docker <args>` that exited 0; else an error with the command and what it said. */
export const dockerOutput = (args: readonly string[], result: DockerCliResult): string => {
  if (result.code !== 0) throw new Error(`docker ${args.join(' ')} failed (${result.code}): ${result.stderr}\n${result.stdout}`);
  return result.stdout;
};

/** Runs `docker <args>` and resolves with its output; a non-zero exit is an error (see dockerOutput). */
export const dockerCliOk = async (home: string, args: readonly string[], options: DockerCliOptions = {}): Promise<string> =>
  dockerOutput(args, await dockerCli(home, args, options));
