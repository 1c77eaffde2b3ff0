/**
 * The body of a logs answer, written as the dispatcher's messages come: one frame per
 * line (stdout or stderr, as the line was written), so the docker CLI's StdCopy hands
 * its writer a whole line at a time. The dispatcher's warnings ("node n1 is not
 * connected": some output will not come) are written once the stream is over, each once,
 * as moby writes a log error: a system-error frame "Error grabbing logs: <warning>\n";
 * so is the error that ended a stream that failed. Writing a system-error frame in the
 * middle would stop the CLI there, as it stops at the daemon's.
 */
import type { Writable } from 'node:stream';
import type { ServiceError } from '@grpc/grpc-js';
import type { LogMessage, SubscribeLogsMessage } from '@shoal/protocol';
import { writeChunk } from '../../events/write-chunk';
import { linePayload } from './log-line';
import type { LineFormat } from './log-line';
import type { LogsSink } from './logs-call';
import { STDERR, STDOUT, frame, systemErrorFrame } from './stdcopy';

export interface BodyOptions extends LineFormat {
  readonly stdout: boolean;
  readonly stderr: boolean;
}

/** The frames of a message's lines, in order; lines of a stream not asked for are left out. */
export const framesOf = (messages: readonly LogMessage[], options: BodyOptions): Buffer =>
  Buffer.concat(
    messages
      .filter((line) => (line.stream === 'STDERR' ? options.stderr : options.stdout))
      .map((line) => frame(line.stream === 'STDERR' ? STDERR : STDOUT, linePayload(line, options))),
  );

/** What a failed stream's end says of the failure. */
const failureOf = (error: ServiceError): string => error.details || error.message;

/** A sink that writes the body to `out` and ends it when the stream ends. */
export const logBody = (out: Writable, options: BodyOptions): LogsSink => {
  const warnings = new Set<string>();
  return {
    async message(message: SubscribeLogsMessage): Promise<void> {
      for (const warning of message.warnings) warnings.add(warning);
      const frames = framesOf(message.messages, options);
      if (frames.length > 0) await writeChunk(out, frames);
    },
    end(error?: ServiceError): void {
      for (const warning of warnings) out.write(systemErrorFrame(warning));
      if (error) out.write(systemErrorFrame(failureOf(error)));
      out.end();
    },
  };
};
