import { Module } from '@nestjs/common';
import { OrchestratorCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule, newObjectId } from '@shoal/runtime';

/** The orchestrator as its own process: the log from the environment, the orchestrator core, its runner (task ids are made here in the shell, so that the core stays pure). */
@Module({
  imports: [
    EventLogModule.forRoot(process.env, 'shoal-orchestrator'),
    ComponentModule.forCore(
      () => new OrchestratorCore({ newId: newObjectId }),
      process.env.SHOAL_CLUSTER_ID ? { cluster: process.env.SHOAL_CLUSTER_ID } : {},
    ),
  ],
})
export class OrchestratorModule {}
