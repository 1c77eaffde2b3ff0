import { Module } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The scheduler as its own process: the log from the environment, the scheduler's core as every deployment makes it (componentCore), its runner. */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot({ env: process.env, clientId: 'shoal-scheduler', manyPartitions: true }), ComponentModule.forComponent('scheduler')],
})
export class SchedulerModule {}
