/**
 * /healthz, /readyz, /statez and /metrics as a Nest module, and the latency of every
 * request; needs API_VIEW and EVENT_LOG from the application (API_METRICS optional).
 */
import { Module } from '@nestjs/common';
import type { MiddlewareConsumer, NestModule } from '@nestjs/common';
import { ApiProcessMetrics } from './api-process-metrics';
import { HealthController } from './health.controller';
import { RequestMetricsMiddleware } from './request-metrics.middleware';

@Module({ controllers: [HealthController], providers: [ApiProcessMetrics] })
export class HealthModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestMetricsMiddleware).forRoutes('*');
  }
}
