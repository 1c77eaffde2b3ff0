/** Docker's /tasks: list (filters) and inspect; logs are not supported. */
import { Controller, Get, HttpException, Inject, Param, Query } from '@nestjs/common';
import { ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { Intents } from '../intents/intents';
import type { DockerTask } from './docker-types';
import { TASK_FILTERS, checkDesiredStates, parseFilters, taskFilter } from './filters';
import { findTask } from './lookup';
import { LOGS_NOT_SUPPORTED } from './services.controller';
import { toDockerTask } from './task-mapper';

@ApiTags('docker: tasks')
@Controller('tasks')
export class TasksController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: 'List tasks' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, service, node, desired-state, label' })
  list(@Query('filters') raw?: string): DockerTask[] {
    this.intents.cluster();
    const filters = parseFilters(raw, TASK_FILTERS);
    checkDesiredStates(filters);
    const state = this.intents.state;
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
  @ApiOperation({ summary: 'Not supported: answers 501' })
  logs(): never {
    throw new HttpException(LOGS_NOT_SUPPORTED, 501);
  }
}
