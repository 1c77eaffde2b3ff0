import { randomUUID } from 'node:crypto';
import { Module } from '@nestjs/common';
import { OrchestratorCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** Task ids, random and made here in the shell so that the core stays pure: 25 base-36 characters, as Docker shows them. */
export const newTaskId = (): string => BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString(36).padStart(25, '0').slice(-25);

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
