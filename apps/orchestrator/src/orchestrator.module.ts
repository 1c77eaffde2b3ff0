import { Module } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The orchestrator as its own process: the log from the environment, the orchestrator's core as every deployment makes it (componentCore), its runner. */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot(process.env, 'shoal-orchestrator'), ComponentModule.forComponent('orchestrator')],
})
export class OrchestratorModule {}
