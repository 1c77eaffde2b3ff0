/**
 * Does a Docker engine answer here? A quick `GET /_ping` (DOCKER_HOST when it is tcp:// or
 * unix://, else /var/run/docker.sock when it exists) that answers false within timeoutMs.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';

type Target = { readonly socketPath: string } | { readonly host: string; readonly port: number };

export const dockerTarget = (env: NodeJS.ProcessEnv): Target | undefined => {
  const dockerHost = env.DOCKER_HOST;
  if (dockerHost?.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  if (dockerHost?.startsWith('tcp://')) {
    const url = new URL(dockerHost.replace(/^tcp:/, 'http:'));
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return existsSync('/var/run/docker.sock') ? { socketPath: '/var/run/docker.sock' } : undefined;
};

export const dockerAnswers = (env: NodeJS.ProcessEnv = process.env, timeoutMs = 2_000): Promise<boolean> => {
  const target = dockerTarget(env);
  if (!target) return Promise.resolve(false);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (answer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(answer);
    };
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => settle(res.statusCode === 200 && body.trim() === 'OK'));
      res.on('error', () => settle(false));
    });
    const timer = setTimeout(() => settle(false), timeoutMs);
    req.on('timeout', () => settle(false));
    req.on('error', () => settle(false));
    req.end();
  });
};
