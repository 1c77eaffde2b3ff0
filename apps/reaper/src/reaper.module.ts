import { Module } from '@nestjs/common';
import { ReaperCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The task reaper as its own process: the log from the environment, the reaper core, its runner. */
@Module({
  imports: [EventLogModule.forRoot(process.env, 'shoal-reaper'), ComponentModule.forCore(() => new ReaperCore(), process.env.SHOAL_CLUSTER_ID ? { cluster: process.env.SHOAL_CLUSTER_ID } : {})],
})
export class ReaperModule {}
