import { Module } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { AuditCheckpointDuty, ComponentModule } from '@shoal/runtime';

/**
 * The task reaper as its own process: the log from the environment, the reaper's core as
 * every deployment makes it (componentCore), its runner; and, given SHOAL_AUDIT_SIGNING_KEY,
 * the audit checkpoints its owner signs (docs/audit.md).
 */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot({ env: process.env, clientId: 'shoal-reaper', manyPartitions: true }), ComponentModule.forComponent('reaper')],
  providers: [AuditCheckpointDuty],
})
export class ReaperModule {}
