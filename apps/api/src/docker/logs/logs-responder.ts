/**
 * Docker's logs answer, for a service's tasks or one task: asks the active dispatcher for
 * the output and streams it back in Docker's multiplexed form. What goes wrong before the
 * output starts is an HTTP error (no dispatcher answers: 503); after, a system-error frame
 * ends the body. The client going away cancels the dispatcher's call.
 */
import { HttpException, Inject, Injectable } from '@nestjs/common';
import type { OnApplicationShutdown } from '@nestjs/common';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LogSelectorMessage } from '@shoal/protocol';
import { Intents } from '../../intents/intents';
import { ApiSecretVault } from '../../secrets/api-secret-vault';
import { versionAtLeast } from '../../http/api-version';
import { requestedApiVersion } from '../../http/http-pipeline';
import { DispatcherCallError, DispatcherLogs } from './dispatcher-logs';
import { DispatcherLocator } from './dispatcher-locator';
import { logBody } from './log-body';
import type { LogsCall } from './logs-call';
import type { LogsQuery } from './logs-query';
import { MULTIPLEXED_STREAM, RAW_STREAM } from './stdcopy';

/** The HTTP error for a subscription that could not start. */
export const httpErrorOf = (error: unknown): HttpException => {
  if (!(error instanceof DispatcherCallError)) return new HttpException(error instanceof Error ? error.message : String(error), 500);
  const at = `the dispatcher at ${error.address}`;
  switch (error.code) {
    case GrpcStatus.INVALID_ARGUMENT:
      return new HttpException(`${at} refused the request: ${error.reason}`, 400);
    case GrpcStatus.NOT_FOUND:
      return new HttpException(`${at}: ${error.reason}`, 404);
    case GrpcStatus.UNAUTHENTICATED:
    case GrpcStatus.PERMISSION_DENIED:
      return new HttpException(`${at} refused the cluster's manager token (${error.reason}): is it a dispatcher of this cluster?`, 500);
    default:
      return new HttpException(
        `cannot get task logs: no active dispatcher answers at ${error.address} (${error.reason}). Task output comes from the active ` +
          "dispatcher: check that one runs and that the API reaches it at the address in its instance name (`<id>@<host:port>`) " +
          'or, before any dispatcher has taken over, at the join address (SHOAL_JOIN_ADDR)',
        503,
      );
  }
};

@Injectable()
export class LogsResponder implements OnApplicationShutdown {
  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(DispatcherLocator) private readonly locator: DispatcherLocator,
    @Inject(DispatcherLogs) private readonly dispatchers: DispatcherLogs,
    @Inject(ApiSecretVault) private readonly secrets: ApiSecretVault,
  ) {}

  async respond(selector: LogSelectorMessage, query: LogsQuery, req: IncomingMessage, res: ServerResponse): Promise<void> {
    const managerToken = this.secrets.keyring.openJoinToken(this.intents.cluster().tokens.manager);
    const gone = new AbortController();
    const leave = (): void => gone.abort();
    req.on('close', leave);
    res.on('close', leave);
    let call: LogsCall;
    try {
      call = await this.dispatchers.subscribe(this.locator.address(), { selector, options: query.options, managerToken }, gone.signal);
    } catch (error) {
      if (gone.signal.aborted) return;
      throw httpErrorOf(error);
    }
    if (gone.signal.aborted) return call.cancel();
    gone.signal.addEventListener('abort', () => call.cancel(), { once: true });

    res.statusCode = 200;
    // Docker names the multiplexed body from API 1.42 on; older clients read the same body under the raw type.
    res.setHeader('Content-Type', versionAtLeast(requestedApiVersion(req), '1.42') ? MULTIPLEXED_STREAM : RAW_STREAM);
    res.setHeader('Cache-Control', 'no-cache');
    res.flushHeaders();
    call.attach(logBody(res, { timestamps: query.timestamps, details: query.details, stdout: query.options.stdout, stderr: query.options.stderr }));
  }

  onApplicationShutdown(): void {
    this.dispatchers.close();
  }
}
