/** Docker's Engine API, swarm subset: what the stock docker CLI needs to drive Shoal. */
import { Module } from '@nestjs/common';
import type { ApiConfig } from '../api.config';
import type { LiveView } from '@shoal/runtime';
import { API_CONFIG, API_VIEW } from '../api.tokens';
import { ApiRootCa } from './api-root-ca';
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
  providers: [
    ApiRootCa,
    {
      provide: DispatcherLogs,
      useFactory: (config: ApiConfig, roots: ApiRootCa, view: LiveView) => new DispatcherLogs(config.ca ? { root: () => roots.at(view.state.cluster)! } : {}),
      inject: [API_CONFIG, ApiRootCa, API_VIEW],
    },
    LogsResponder,
  ],
})
export class DockerModule {}
