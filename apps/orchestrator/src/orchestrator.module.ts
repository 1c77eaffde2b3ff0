import { Module } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The orchestrator as its own process: the log from the environment, the orchestrator's core as every deployment makes it (componentCore), its runner. */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot({ env: process.env, clientId: 'shoal-orchestrator', manyPartitions: true }), ComponentModule.forComponent('orchestrator')],
})
export class OrchestratorModule {}
