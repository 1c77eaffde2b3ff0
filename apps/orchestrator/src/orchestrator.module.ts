import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { OrchestratorCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** Task ids: random, made here in the shell so that the core stays pure. */
export const newTaskId = (): string => randomUUID();

/** The orchestrator as its own process: the log from the environment, the orchestrator core, its runner. */
@Module({
  imports: [
    EventLogModule.forRoot(process.env, 'shoal-orchestrator'),
    ComponentModule.forCore(
      () => new OrchestratorCore({ newId: newTaskId }),
      process.env.SHOAL_CLUSTER_ID ? { cluster: process.env.SHOAL_CLUSTER_ID } : {},
    ),
  ],
})
export class OrchestratorModule {}
