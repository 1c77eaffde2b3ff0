/** Docker's Engine API, swarm subset: what the stock docker CLI needs to drive Shoal. */
import { Module } from '@nestjs/common';
import { DistributionController } from './distribution.controller';
import { DispatcherLogs } from './logs/dispatcher-logs';
import { LogsResponder } from './logs/logs-responder';
import { NodesController } from './nodes.controller';
import { ServicesController } from './services.controller';
import { SwarmController } from './swarm.controller';
import { SystemController } from './system.controller';
import { TasksController } from './tasks.controller';

@Module({
  controllers: [SystemController, SwarmController, NodesController, ServicesController, TasksController, DistributionController],
  // Logs: the client of the dispatchers' Logs service, and the answer built on it (needs DispatcherLocator from ApiCoreModule).
  providers: [{ provide: DispatcherLogs, useFactory: () => new DispatcherLogs() }, LogsResponder],
})
export class DockerModule {}
