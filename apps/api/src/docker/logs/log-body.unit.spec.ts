import { PassThrough } from 'node:stream';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { ServiceError } from '@grpc/grpc-js';
import { Metadata } from '@grpc/grpc-js';
import { logLine, readFrames } from '../../testing/fake-logs-server';
import { logBody } from './log-body';

const collect = (out: PassThrough): Promise<Buffer> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = [];
    out.on('data', (chunk: Buffer) => chunks.push(chunk));
    out.on('end', () => resolve(Buffer.concat(chunks)));
  });

const options = { stdout: true, stderr: true, timestamps: false, details: false };

describe('the body of a logs answer', () => {
  it('frames each line on the stream it was written to, in order', async () => {
    const out = new PassThrough();
    const body = collect(out);
    const sink = logBody(out, options);
    await sink.message({ messages: [logLine('out'), logLine('err', { stream: 'STDERR' }), logLine('out again')], warnings: [] });
    sink.end();
    expect(readFrames(await body)).toEqual([
      { stream: 1, payload: 'out\n' },
      { stream: 2, payload: 'err\n' },
      { stream: 1, payload: 'out again\n' },
    ]);
  });

  it('leaves out the lines of a stream not asked for', async () => {
    const out = new PassThrough();
    const body = collect(out);
    const sink = logBody(out, { ...options, stdout: false });
    await sink.message({ messages: [logLine('out'), logLine('err', { stream: 'STDERR' })], warnings: [] });
    sink.end();
    expect(readFrames(await body)).toEqual([{ stream: 2, payload: 'err\n' }]);
  });

  it('writes the warnings once each, as system-error frames, when the stream is over', async () => {
    const out = new PassThrough();
    const body = collect(out);
    const sink = logBody(out, options);
    await sink.message({ messages: [], warnings: ['node n2 is not connected'] });
    await sink.message({ messages: [logLine('after the warning')], warnings: ['node n2 is not connected'] });
    sink.end();
    expect(readFrames(await body)).toEqual([
      { stream: 1, payload: 'after the warning\n' },
      { stream: 3, payload: 'Error grabbing logs: node n2 is not connected\n' },
    ]);
  });

  it('ends a failed stream with its error as a system-error frame', async () => {
    const out = new PassThrough();
    const body = collect(out);
    const sink = logBody(out, options);
    await sink.message({ messages: [logLine('one')], warnings: [] });
    const error = Object.assign(new Error('14 UNAVAILABLE: connection reset'), { code: GrpcStatus.UNAVAILABLE, details: 'connection reset', metadata: new Metadata() }) as ServiceError;
    sink.end(error);
    expect(readFrames(await body)).toEqual([
      { stream: 1, payload: 'one\n' },
      { stream: 3, payload: 'Error grabbing logs: connection reset\n' },
    ]);
  });
});
