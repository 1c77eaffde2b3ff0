import { randomBytes } from 'node:crypto';
import { Module } from '@nestjs/common';
import { AllocatorCore } from '@shoal/domain';
import { EventLogModule } from '@shoal/eventlog';
import { ComponentModule } from '@shoal/runtime';

/** A network id as Docker makes them: 25 lowercase hex-and-letter characters. */
export const newNetworkId = (): string => randomBytes(16).toString('hex').slice(0, 25);

/** The allocator as its own process: the log from the environment, the allocator core, its runner. */
@Module({
  imports: [
    EventLogModule.forRoot(process.env, 'shoal-allocator'),
    ComponentModule.forCore(() => new AllocatorCore({ newId: newNetworkId }), process.env.SHOAL_CLUSTER_ID ? { cluster: process.env.SHOAL_CLUSTER_ID } : {}),
  ],
})
export class AllocatorModule {}
