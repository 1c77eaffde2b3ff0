/** Docker's /tasks: list (filters), inspect, logs. */
import { Controller, Get, Inject, Param, Query, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Intents } from '../intents/intents';
import { checkDesiredStates, parseFilters, TASK_FILTERS, taskFilter, toDockerTask } from '@shoal/docker-api';
import type { DockerTask } from '@shoal/docker-api';
import { API_CONFIG } from '../api.tokens';
import type { ApiConfig } from '../api.config';
import { swarmNodes } from './control-plane-node';
import { SHOAL_VERSION } from './system.controller';
import { findNode, findService, findTask } from './lookup';
import { LogsOperation } from './logs/logs-openapi';
import { LogsResponder } from './logs/logs-responder';
import { parseLogsQuery } from './logs/logs-query';
import type { RawLogsQuery } from './logs/logs-query';

@ApiTags('docker: tasks')
@Controller('tasks')
export class TasksController {
  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(LogsResponder) private readonly logsResponder: LogsResponder,
    @Inject(API_CONFIG) private readonly config: ApiConfig,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List tasks' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, service, node, desired-state, label' })
  list(@Query('filters') raw?: string): DockerTask[] {
    const cluster = this.intents.cluster();
    const filters = parseFilters(raw, TASK_FILTERS);
    checkDesiredStates(filters);
    const state = this.intents.state;
    // As Docker's daemon: a service or node filter names one that exists (404 otherwise); the
    // control plane is a node too, one that runs no task (`docker node ps self` lists none).
    for (const service of filters.get('service') ?? []) findService(state, service);
    const nodes = { ...state, nodes: swarmNodes(cluster, state.nodes, this.config.joinAddr, SHOAL_VERSION) };
    for (const node of filters.get('node') ?? []) findNode(nodes, node);
    const matches = taskFilter(state, filters);
    return [...state.tasks.values()].filter(matches).map((task) => toDockerTask(state, task));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a task (by id or id prefix)' })
  inspect(@Param('id') id: string): DockerTask {
    this.intents.cluster();
    const state = this.intents.state;
    return toDockerTask(state, findTask(state, id));
  }

  @Get(':id/logs')
  @LogsOperation("A task's output, from the active dispatcher")
  async logs(@Param('id') id: string, @Query() query: RawLogsQuery, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    this.intents.cluster();
    const parsed = parseLogsQuery(query);
    const task = findTask(this.intents.state, id);
    await this.logsResponder.respond({ serviceIds: [], taskIds: [task.id] }, parsed, req, res);
  }
}
