/** Docker's Engine API, swarm subset: what the stock docker CLI needs to drive Shoal. */
import { Module } from '@nestjs/common';
import { DistributionController } from './distribution.controller';
import { NodesController } from './nodes.controller';
import { SecretsConfigsController } from './secrets-configs.controller';
import { ServicesController } from './services.controller';
import { SwarmController } from './swarm.controller';
import { SystemController } from './system.controller';
import { TasksController } from './tasks.controller';

@Module({
  controllers: [SystemController, SwarmController, NodesController, ServicesController, TasksController, DistributionController, SecretsConfigsController],
})
export class DockerModule {}
