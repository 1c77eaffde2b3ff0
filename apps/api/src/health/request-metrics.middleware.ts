/**
 * Times every request Nest routes and observes it, when the answer has gone, under its
 * method, its route as routed (`/services/:id`, not the id: one series per route) and its
 * status. A request no route takes is counted under route "unmatched".
 */
import { Inject, Injectable } from '@nestjs/common';
import type { NestMiddleware } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiProcessMetrics } from './api-process-metrics';

type Routed = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

/** The route a request took, as its pattern; "unmatched" when none took it. */
export const routeOf = (req: Routed): string => (typeof req.route?.path === 'string' ? `${req.baseUrl ?? ''}${req.route.path}` : 'unmatched');

@Injectable()
export class RequestMetricsMiddleware implements NestMiddleware {
  constructor(@Inject(ApiProcessMetrics) private readonly api: ApiProcessMetrics) {}

  use(req: Routed, res: ServerResponse, next: () => void): void {
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.api.requests.observe({ method: req.method ?? 'GET', route: routeOf(req), status: String(res.statusCode) }, seconds);
    });
    next();
  }
}
