/** Docker's /services: list (filters, status), create, inspect, update (rollback, scale), remove, logs. */
import { Body, Controller, Delete, Get, HttpCode, HttpException, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { admitServiceSpec } from '@shoal/domain';
import { newObjectId } from '@shoal/runtime';
import { Intents } from '../intents/intents';
import { fromDockerServiceSpec, goDecodeAs, openApiSchema, parseFilters, queryFlag, queryVersion, SERVICE_FILTERS, SERVICE_SPEC, serviceMatches, serviceStatuses, toDockerService } from '@shoal/docker-api';
import type { DockerService, DockerServiceSpec } from '@shoal/docker-api';
import { findService } from './lookup';
import { withNetworkIds } from './network-targets';
import { LogsOperation } from './logs/logs-openapi';
import { LogsResponder } from './logs/logs-responder';
import { parseLogsQuery } from './logs/logs-query';
import type { RawLogsQuery } from './logs/logs-query';

/** A create or update body: decoded once, as Docker's engine decodes it, then mapped. */
const serviceSpecOf = (body: unknown) => fromDockerServiceSpec(goDecodeAs<DockerServiceSpec>(SERVICE_SPEC, body));
const SERVICE_SPEC_SCHEMA = openApiSchema(SERVICE_SPEC);

@ApiTags('docker: services')
@Controller('services')
export class ServicesController {
  constructor(
    @Inject(Intents) private readonly intents: Intents,
    @Inject(LogsResponder) private readonly logsResponder: LogsResponder,
  ) {}

  @Get()
  @ApiOperation({ summary: 'List services' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id, name, label, mode' })
  @ApiQuery({ name: 'status', required: false, description: 'true: include ServiceStatus (running and desired tasks)' })
  list(@Query('filters') raw?: string, @Query('status') status?: string): DockerService[] {
    this.intents.cluster();
    const filters = parseFilters(raw, SERVICE_FILTERS);
    const state = this.intents.state;
    const statuses = queryFlag(status) ? serviceStatuses(state) : undefined;
    return [...state.services.values()]
      .filter((service) => serviceMatches(filters, service))
      .map((service) => toDockerService(service, statuses ? { status: statuses.get(service.id)! } : {}));
  }

  @Post('create')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a service' })
  @ApiBody({ schema: SERVICE_SPEC_SCHEMA })
  async create(@Body() body: unknown): Promise<{ ID: string }> {
    this.intents.cluster();
    const spec = withNetworkIds(this.intents.state, serviceSpecOf(body));
    const id = newObjectId();
    this.intents.admit(admitServiceSpec(this.intents.state, { id, spec, by: 'api' }, 'intent'));
    await this.intents.submit('ServiceCreated', { id, spec });
    // Docker's ServiceCreateResponse: Warnings is omitted when there are none.
    return { ID: id };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a service (by id, name or id prefix)' })
  @ApiQuery({ name: 'insertDefaults', required: false })
  inspect(@Param('id') id: string, @Query('insertDefaults') insertDefaults?: string): DockerService {
    this.intents.cluster();
    const state = this.intents.state;
    return toDockerService(findService(state, id), { insertDefaults: queryFlag(insertDefaults) });
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: "Update a service's spec, or roll it back (rollback=previous); `version` must be its Version.Index" })
  @ApiBody({ schema: SERVICE_SPEC_SCHEMA })
  @ApiQuery({ name: 'version', required: true })
  @ApiQuery({ name: 'rollback', required: false, description: '"previous": return to the spec before the last update' })
  async update(
    @Param('id') id: string,
    @Body() body: unknown,
    @Query('version') rawVersion?: string,
    @Query('rollback') rollback?: string,
  ): Promise<{ Warnings: string[] | null }> {
    this.intents.cluster();
    const version = queryVersion(rawVersion);
    const service = findService(this.intents.state, id);
    const expect = { serviceVersions: { [service.id]: version } };
    const rollingBack = rollback === 'previous';
    if (!rollingBack && rollback !== undefined && rollback !== '') throw new HttpException(`unrecognized rollback option ${rollback}`, 400);
    // A rollback without a previous spec is refused by the admission, before its spec is read.
    const spec = rollingBack ? (service.previousSpec ?? service.spec) : withNetworkIds(this.intents.state, serviceSpecOf(body));
    const data = { id: service.id, spec, ...(rollingBack ? { rollback: true } : {}) };
    this.intents.admit(admitServiceSpec(this.intents.state, { ...data, current: service, by: 'api', expect }, 'intent'));
    await this.intents.submit('ServiceUpdated', data, expect);
    // Docker's ServiceUpdateResponse: null when there are none.
    return { Warnings: null };
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Remove a service' })
  async remove(@Param('id') id: string): Promise<void> {
    this.intents.cluster();
    const service = findService(this.intents.state, id);
    await this.intents.submit('ServiceRemoved', { id: service.id });
  }

  @Get(':id/logs')
  @LogsOperation("The output of a service's tasks, from the active dispatcher")
  async logs(@Param('id') id: string, @Query() query: RawLogsQuery, @Req() req: IncomingMessage, @Res() res: ServerResponse): Promise<void> {
    this.intents.cluster();
    const parsed = parseLogsQuery(query);
    const service = findService(this.intents.state, id);
    await this.logsResponder.respond({ serviceIds: [service.id], taskIds: [] }, parsed, req, res);
  }
}
