/**
 * A span for every request the API answers, while tracing is on: the trace a `docker
 * service create` starts (or continues, when the client sent a traceparent). The span is
 * active while the request is handled, so the records its handler appends carry it in
 * their headers and the components' ticks that act on them join the trace.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { INestApplication } from '@nestjs/common';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, context, propagation, trace } from '@opentelemetry/api';
import { shoalTracer, tracingOn } from '@shoal/runtime';
import { routeOf } from '../health/request-metrics.middleware';

type Routed = IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };

export const installRequestTracing = (app: INestApplication): void => {
  app.use((req: Routed, res: ServerResponse, next: () => void) => {
    if (!tracingOn()) return next();
    const method = req.method ?? 'GET';
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = shoalTracer().startSpan(
      method,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': method, 'url.path': (req.url ?? '/').split('?')[0] ?? '/' } },
      parent,
    );
    res.once('close', () => {
      const route = routeOf(req);
      span.updateName(`${method} ${route}`);
      span.setAttributes({ 'http.route': route, 'http.response.status_code': res.statusCode });
      if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    });
    context.with(trace.setSpan(parent, span), next);
  });
};
