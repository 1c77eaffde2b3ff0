/**
 * A bare grpc-js server for grpc-transport.ts: heartbeats as unary calls (Beat) and as
 * messages on a client stream (Beats), each only noted in a map, as the dispatcher notes
 * a heartbeat. Run as a child process; it tells its parent the port it listens on.
 */
import { Server, ServerCredentials } from '@grpc/grpc-js';
import type { ServiceDefinition } from '@grpc/grpc-js';

const raw = (buffer: Buffer): Buffer => buffer;

export const HEARTBEAT_TRANSPORT: ServiceDefinition = {
  beat: { path: '/bench.Beats/Beat', requestStream: false, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
  beats: { path: '/bench.Beats/Beats', requestStream: true, responseStream: false, requestSerialize: raw, requestDeserialize: raw, responseSerialize: raw, responseDeserialize: raw },
};

if (require.main === module) {
  const lastSeen = new Map<string, number>();
  const server = new Server();
  server.addService(HEARTBEAT_TRANSPORT, {
    beat: (call: { request: Buffer }, done: (error: null, response: Buffer) => void) => {
      lastSeen.set(call.request.toString(), Date.now());
      done(null, Buffer.from('ok'));
    },
    beats: (call: NodeJS.EventEmitter, done: (error: null, response: Buffer) => void) => {
      call.on('data', (message: Buffer) => lastSeen.set(message.toString(), Date.now()));
      call.on('end', () => done(null, Buffer.from('ok')));
    },
  });
  server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    process.send?.({ port });
  });
}
