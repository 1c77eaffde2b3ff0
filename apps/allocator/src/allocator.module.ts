import { Module } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** The allocator as its own process: the log from the environment, the allocator's core as every deployment makes it (componentCore), its runner. */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot({ env: process.env, clientId: 'shoal-allocator', manyPartitions: true }), ComponentModule.forComponent('allocator')],
})
export class AllocatorModule {}
