import { Module } from '@nestjs/common';
import { SchedulerCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The scheduler as its own process: the log from the environment, the scheduler core, its runner. */
@Module({
  imports: [
    EventLogModule.forRoot(process.env, 'shoal-scheduler'),
    ComponentModule.forCore(() => new SchedulerCore(), process.env.SHOAL_CLUSTER_ID ? { cluster: process.env.SHOAL_CLUSTER_ID } : {}),
  ],
})
export class SchedulerModule {}
