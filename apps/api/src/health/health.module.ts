/** /healthz, /readyz and /metrics as a Nest module; needs API_VIEW and EVENT_LOG from the application. */
import { Module } from '@nestjs/common';
import { HealthController } from './health.controller';

@Module({ controllers: [HealthController] })
export class HealthModule {}
