/** Docker's Engine API, swarm subset: what the stock docker CLI needs to drive Shoal. */
import { Module } from '@nestjs/common';
import { SystemController } from './system.controller';

@Module({
  controllers: [SystemController],
})
export class DockerModule {}
