/** Does a Docker engine answer here? A quick `GET /_ping`, never a hang. */
import { existsSync } from 'node:fs';
import { request } from 'node:http';

const socketFrom = (dockerHost: string | undefined): { socketPath: string } | { host: string; port: number } | undefined => {
  if (dockerHost?.startsWith('unix://')) return { socketPath: dockerHost.slice('unix://'.length) };
  if (dockerHost?.startsWith('tcp://')) {
    const url = new URL(dockerHost.replace(/^tcp:/, 'http:'));
    return { host: url.hostname, port: Number(url.port || 2375) };
  }
  return existsSync('/var/run/docker.sock') ? { socketPath: '/var/run/docker.sock' } : undefined;
};

export const dockerAnswers = (env: NodeJS.ProcessEnv = process.env, timeoutMs = 2_000): Promise<boolean> => {
  const target = socketFrom(env.DOCKER_HOST);
  if (!target) return Promise.resolve(false);
  return new Promise((resolve) => {
    const req = request({ ...target, path: '/_ping', method: 'GET', timeout: timeoutMs }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve(res.statusCode === 200 && body.trim() === 'OK'));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
};
