/**
 * Docker's /configs: list (filters), create, inspect (id, name or id prefix), update (only
 * the labels), remove (refused by evolve while a service uses the config).
 */
import { Body, Controller, Delete, Get, HttpCode, Inject, Param, Post, Query } from '@nestjs/common';
import { ApiBody, ApiOperation, ApiQuery, ApiTags } from '@nestjs/swagger';
import { admitConfigSpec } from '@shoal/domain';
import { newObjectId } from '@shoal/runtime';
import { CONFIG_FILTERS, CONFIG_SPEC, configMatches, goDecodeAs, openApiSchema, parseFilters, queryVersion } from '@shoal/docker-api';
import { findConfig } from '../docker/lookup';
import { Intents } from '../intents/intents';
import { fromDockerConfigCreate, fromDockerConfigUpdate, toDockerConfig } from './config-mapper';
import type { DockerConfig, DockerConfigBody } from './config-mapper';

@ApiTags('docker: configs')
@Controller('configs')
export class ConfigsController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: 'List configs' })
  @ApiQuery({ name: 'filters', required: false, description: 'JSON: id (prefix), name (prefix), names (exact), label (key or key=value)' })
  list(@Query('filters') raw?: string): DockerConfig[] {
    this.intents.cluster();
    const filters = parseFilters(raw, CONFIG_FILTERS);
    return [...this.intents.state.configs.values()].filter((config) => configMatches(filters, config)).map(toDockerConfig);
  }

  @Post('create')
  @HttpCode(201)
  @ApiOperation({ summary: 'Create a config', description: 'Written as ConfigCreated; answers once evolve has applied it. Refused (409) when the name is taken.' })
  @ApiBody({ schema: openApiSchema(CONFIG_SPEC) })
  async create(@Body() body: unknown): Promise<{ ID: string }> {
    this.intents.cluster();
    const spec = fromDockerConfigCreate(goDecodeAs<DockerConfigBody>(CONFIG_SPEC, body));
    const id = newObjectId();
    this.intents.admit(admitConfigSpec(this.intents.state, id, spec));
    await this.intents.submit('ConfigCreated', { id, spec });
    return { ID: id };
  }

  @Get(':id')
  @ApiOperation({ summary: 'Inspect a config (by id, name or id prefix), with its data' })
  inspect(@Param('id') ref: string): DockerConfig {
    this.intents.cluster();
    return toDockerConfig(findConfig(this.intents.state, ref));
  }

  @Post(':id/update')
  @HttpCode(200)
  @ApiOperation({ summary: "Update a config's labels; `version` must be its Version.Index", description: 'The body is the whole ConfigSpec: its name and data may not change.' })
  @ApiBody({ schema: openApiSchema(CONFIG_SPEC) })
  @ApiQuery({ name: 'version', required: true })
  async update(@Param('id') ref: string, @Body() body: unknown, @Query('version') rawVersion?: string): Promise<void> {
    this.intents.cluster();
    const version = queryVersion(rawVersion);
    const config = findConfig(this.intents.state, ref);
    const spec = fromDockerConfigUpdate(goDecodeAs<DockerConfigBody>(CONFIG_SPEC, body), config);
    await this.intents.submit('ConfigUpdated', { id: config.id, spec }, { configVersions: { [config.id]: version } });
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Remove a config', description: "Refused (400, as Docker) while a service's spec uses it." })
  async remove(@Param('id') ref: string): Promise<void> {
    this.intents.cluster();
    const config = findConfig(this.intents.state, ref);
    await this.intents.submit('ConfigRemoved', { id: config.id });
  }
}
