/**
 * The audit surface as a Nest module. It needs EVENT_LOG (from @shoal/eventlog) and
 * API_VIEW (the API's LiveView) from the application that imports it.
 */
import { Module } from '@nestjs/common';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { AuditController } from './audit.controller';
import { AuditTrail } from './audit-trail';
import { AUDIT_TRAIL, AuditService } from './audit.service';
import { StorySource } from './story-source';

@Module({
  controllers: [AuditController],
  providers: [{ provide: AUDIT_TRAIL, useFactory: (log: EventLog) => new AuditTrail(log), inject: [EVENT_LOG] }, StorySource, AuditService],
  exports: [AUDIT_TRAIL, AuditService],
})
export class AuditModule {}
