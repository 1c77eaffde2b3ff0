/**
 * What gRPC itself costs a server per heartbeat, with nothing of Shoal's in the way: a bare
 * grpc-js server in a process of its own (grpc-transport-server.ts) takes heartbeats as
 * unary calls, then as messages on long-lived client streams (one per node), from 500
 * nodes over 10 connections, at the benchmark's rates. Messages are raw bytes (no
 * protobuf), so the difference is the transport's: a new HTTP/2 stream with headers and
 * trailers per call, against a DATA frame on a stream already open.
 */
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { credentials, makeGenericClientConstructor } from '@grpc/grpc-js';
import type { Client, ClientWritableStream } from '@grpc/grpc-js';
import { processCpu } from './cluster';
import { paced } from './paced';
import { HEARTBEAT_TRANSPORT } from './grpc-transport-server';

const NODES = 500;
const CONNECTIONS = 10;

export interface TransportCost {
  /** CPU each heartbeat adds to the server's, over its silent share, in µs, per rate. */
  readonly unary: ReadonlyMap<number, number>;
  readonly streamed: ReadonlyMap<number, number>;
}

type BeatClient = Client & {
  beat(request: Buffer, options: { deadline: number }, callback: () => void): unknown;
  beats(callback: () => void): ClientWritableStream<Buffer>;
};

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const transportCost = async (rates: readonly number[], seconds: number): Promise<TransportCost> => {
  const server = fork(join(__dirname, 'grpc-transport-server.ts'), [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('message', (message: { port: number }) => resolve(message.port));
      server.once('exit', (code) => reject(new Error(`the bare gRPC server exited with ${code}`)));
    });
    const cpu = (): number => processCpu(server.pid!);
    const Beats = makeGenericClientConstructor(HEARTBEAT_TRANSPORT, 'Beats');
    const clients = Array.from({ length: CONNECTIONS }, () => new Beats(`127.0.0.1:${port}`, credentials.createInsecure()) as unknown as BeatClient);
    const streams = Array.from({ length: NODES }, (_, i) => clients[i % CONNECTIONS]!.beats(() => undefined));
    const share = async (send?: (node: number) => void, rate = 0): Promise<number> => {
      await sleep(1_000);
      const before = cpu();
      const started = Date.now();
      await paced(rate, seconds, (n) => send?.(n % NODES));
      await sleep(200);
      return (cpu() - before) / ((Date.now() - started) / 1_000);
    };
    const silent = await share();
    const unary = new Map<number, number>();
    const streamed = new Map<number, number>();
    for (const rate of rates) {
      const node = (i: number): Buffer => Buffer.from(`node-${i}`);
      unary.set(rate, (((await share((i) => clients[i % CONNECTIONS]!.beat(node(i), { deadline: Date.now() + 5_000 }, () => undefined), rate)) - silent) / rate) * 1e6);
      streamed.set(rate, (((await share((i) => void streams[i]!.write(node(i)), rate)) - silent) / rate) * 1e6);
    }
    for (const stream of streams) stream.end();
    for (const client of clients) client.close();
    return { unary, streamed };
  } finally {
    server.kill();
  }
};
