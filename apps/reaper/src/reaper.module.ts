import { Module } from '@nestjs/common';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The task reaper as its own process: the log from the environment, the reaper's core as every deployment makes it (componentCore), its runner. */
@Module({
  imports: [EventLogModule.forRoot(process.env, 'shoal-reaper'), ComponentModule.forComponent('reaper')],
})
export class ReaperModule {}
