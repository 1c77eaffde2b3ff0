/**
 * A Docker engine that runs nothing, on a unix socket of its own, for unit specs of the
 * docker executor: it answers the calls the executor makes for one container (image,
 * create, start, inspect, logs, events, stop, remove) as an engine does, and the spec
 * says when the container prints (with the engine's own times) and when it dies.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One log message as the engine keeps it: its stream, its time (RFC 3339 with nanoseconds), its text. */
export interface EngineLogLine {
  readonly stream: 1 | 2;
  readonly time: string;
  readonly text: string;
}

export class FakeEngine {
  /** The container's id, as an engine makes them. */
  readonly containerId: string;
  /** Its process once started. */
  readonly pid: number;
  private readonly dir = mkdtempSync(join(tmpdir(), 'shoal-fake-engine-'));
  readonly socket = join(this.dir, 'docker.sock');
  private readonly server: Server;
  private state: { Status: string; Pid: number; ExitCode: number } = { Status: 'created', Pid: 0, ExitCode: 0 };
  private labels: Record<string, string> = {};
  private readonly events = new Set<ServerResponse>();
  private readonly logs = new Set<ServerResponse>();
  private readonly printed: EngineLogLine[] = [];
  /** The calls made, `METHOD /path` (no version prefix, no query). */
  readonly calls: string[] = [];

  constructor(options: { containerId?: string; pid?: number } = {}) {
    this.containerId = options.containerId ?? '5e1f0c7d'.padEnd(64, 'a');
    this.pid = options.pid ?? 4242;
    this.server = createServer((req, res) => this.answer(req, res));
  }

  get engine(): string {
    return `unix://${this.socket}`;
  }

  listen(): Promise<void> {
    return new Promise((resolve) => this.server.listen(this.socket, resolve));
  }

  /** The container prints a line: followers of its logs get it. */
  print(line: EngineLogLine): void {
    this.printed.push(line);
    for (const res of this.logs) res.write(frame(line));
  }

  /** The container's process ends with `exitCode`: its state says so, its logs end, and a `die` event goes out. */
  die(exitCode: number): void {
    this.state = { Status: 'exited', Pid: 0, ExitCode: exitCode };
    for (const res of this.logs) res.end();
    this.logs.clear();
    const event = { Type: 'container', Action: 'die', Actor: { ID: this.containerId, Attributes: { ...this.labels, exitCode: String(exitCode) } }, timeNano: Date.now() * 1e6 };
    for (const res of this.events) res.write(`${JSON.stringify(event)}\n`);
  }

  async close(): Promise<void> {
    for (const res of [...this.events, ...this.logs]) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    rmSync(this.dir, { recursive: true, force: true });
  }

  private answer(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://engine');
    const path = url.pathname.replace(/^\/v\d+\.\d+/, '');
    this.calls.push(`${req.method} ${path}`);
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    const ours = `/containers/${this.containerId}`;
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      if (req.method === 'GET' && path.startsWith('/images/')) return json(200, { Id: 'sha256:image' });
      if (req.method === 'POST' && path === '/containers/create') {
        this.labels = (JSON.parse(body) as { Labels?: Record<string, string> }).Labels ?? {};
        return json(201, { Id: this.containerId, Warnings: [] });
      }
      if (req.method === 'GET' && path === '/events') {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.flushHeaders();
        this.events.add(res);
        res.on('close', () => this.events.delete(res));
        return;
      }
      if (req.method === 'GET' && path === '/containers/json') return json(200, []);
      if (req.method === 'GET' && path === `${ours}/json`) return json(200, { Id: this.containerId, Config: { Tty: false, Labels: this.labels }, State: this.state });
      if (req.method === 'POST' && path === `${ours}/start`) {
        this.state = { Status: 'running', Pid: this.pid, ExitCode: 0 };
        res.writeHead(204);
        return res.end();
      }
      if (req.method === 'GET' && path === `${ours}/logs`) {
        res.writeHead(200, { 'Content-Type': 'application/vnd.docker.multiplexed-stream' });
        for (const line of this.printed) res.write(frame(line));
        if (this.state.Status === 'exited') return res.end();
        res.flushHeaders();
        this.logs.add(res);
        res.on('close', () => this.logs.delete(res));
        return;
      }
      if ((req.method === 'POST' && path === `${ours}/stop`) || (req.method === 'DELETE' && path === ours)) {
        res.writeHead(204);
        return res.end();
      }
      json(404, { message: `no such path: ${req.method} ${path}` });
    });
  }
}

/** A log message as `GET /containers/{id}/logs?timestamps=1` sends it without a TTY: its frame, its payload `<time> <text>`. */
const frame = (line: EngineLogLine): Buffer => {
  const payload = Buffer.from(`${line.time} ${line.text}`);
  const header = Buffer.alloc(8);
  header[0] = line.stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};
