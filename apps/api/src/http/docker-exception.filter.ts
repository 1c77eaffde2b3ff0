/** Every error Nest sees leaves in Docker's shape, `{"message": "…"}`, with its status. */
import { Catch, HttpException, Logger, NotFoundException } from '@nestjs/common';
import type { ArgumentsHost, ExceptionFilter } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LogUnavailableError } from '@shoal/eventlog';
import { sendDockerError } from './docker-error';
import { BadInputError } from '@shoal/docker-api';
import { RETRY_AFTER_SECONDS, logUnavailableMessage } from './log-unavailable-answer';
import { methodNotServed } from './method-not-served';
import { routeMethods } from './route-methods';
import { unknownRouteMessage } from './unknown-route';

export const dockerMessage = (error: HttpException): string => {
  const response = error.getResponse();
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (Array.isArray(message)) return message.map(String).join('; ');
  if (typeof message === 'string') return message;
  return error.message;
};

@Catch()
export class DockerExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('api');

  catch(error: unknown, host: ArgumentsHost): void {
    const res = host.switchToHttp().getResponse<ServerResponse>();
    if (error instanceof NotFoundException) {
      const message = dockerMessage(error);
      const unknownRoute = unknownRouteMessage(message);
      if (unknownRoute) return this.unknownRoute(host.switchToHttp().getRequest<IncomingMessage>(), res, unknownRoute);
      return sendDockerError(res, 404, message);
    }
    if (error instanceof HttpException) return sendDockerError(res, error.getStatus(), dockerMessage(error));
    if (error instanceof BadInputError) return sendDockerError(res, 400, error.message);
    if (error instanceof LogUnavailableError) {
      this.logger.warn(error.message);
      if (!res.headersSent) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
      return sendDockerError(res, 503, logUnavailableMessage(error.written));
    }
    this.logger.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    sendDockerError(res, 500, error instanceof Error ? error.message : String(error));
  }

  /** No route for the request: its path served with other methods, or not at all. */
  private unknownRoute(req: IncomingMessage, res: ServerResponse, message: string): void {
    const url = req.url ?? '/';
    const path = url.split('?')[0] ?? url;
    const method = req.method ?? 'GET';
    const notServed = methodNotServed(method, (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? url, path, routeMethods(req, path));
    if (!notServed) return sendDockerError(res, 404, message);
    res.setHeader('Allow', notServed.allow);
    sendDockerError(res, notServed.status, notServed.message);
  }
}
