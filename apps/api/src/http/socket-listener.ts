/**
 * The API's unix socket: the same express app as the TCP listener, on
 * `<dataDir>/shoal.sock` with mode 0600 and no token, as Docker's own socket. It is bound
 * under a temporary name, made 0600, then renamed into place, so it is never reachable
 * with a wider mode; it is closed and removed before the application shuts down.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { Inject, Injectable } from '@nestjs/common';
import type { BeforeApplicationShutdown } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { markSocketConnection } from './http-pipeline';

/** Whether something accepts connections on the socket (a stale file from a crash does not). */
const answers = (path: string): Promise<boolean> =>
  new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });

@Injectable()
export class SocketListener implements BeforeApplicationShutdown {
  private server?: Server;
  private path?: string;

  constructor(@Inject(HttpAdapterHost) private readonly adapterHost: HttpAdapterHost) {}

  async listen(path: string): Promise<void> {
    mkdirSync(dirname(path), { recursive: true });
    if (existsSync(path)) {
      if (await answers(path)) throw new Error(`another process is serving the API on ${path}`);
      rmSync(path);
    }
    const temporary = `${path}.${process.pid}.tmp`;
    if (existsSync(temporary)) rmSync(temporary);
    const server = createServer(this.adapterHost.httpAdapter.getInstance());
    server.on('connection', markSocketConnection);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(temporary, () => {
        server.off('error', reject);
        resolve();
      });
    });
    chmodSync(temporary, 0o600);
    renameSync(temporary, path);
    this.server = server;
    this.path = path;
  }

  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
    if (this.path && existsSync(this.path)) rmSync(this.path);
  }
}
