/** Docker's Engine API, swarm subset: what the stock docker CLI needs to drive Shoal. */
import { Module } from '@nestjs/common';
import type { ApiConfig } from '../api.config';
import { API_CONFIG } from '../api.tokens';
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
  providers: [{ provide: DispatcherLogs, useFactory: (config: ApiConfig) => new DispatcherLogs(config.ca ? { ca: config.ca } : {}), inject: [API_CONFIG] }, LogsResponder],
})
export class DockerModule {}
