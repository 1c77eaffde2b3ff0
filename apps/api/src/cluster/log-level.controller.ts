/**
 * The log level (GET and POST /shoal/v1/log-level): which record versions writers may use.
 * Raising it is an intent like any other (LogLevelRaised, on the log and audited); evolve
 * applies it only when every component's owner reads the new level, so writers start
 * using a version only after every reader that acts on the log can read it.
 */
import { Body, Controller, Get, HttpCode, Inject, Post } from '@nestjs/common';
import { ApiBadRequestResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { LOG_LEVEL } from '@shoal/contracts';
import type { Component } from '@shoal/contracts';
import { DOCKER_ERROR_SCHEMA } from '../audit/audit-responses';
import { dockerValidationPipe } from '../audit/docker-validation';
import { Intents } from '../intents/intents';
import { RaiseLogLevel } from './log-level.dto';

export interface LogLevelView {
  /** The log's level now. */
  readonly level: number;
  /** The highest level this API's build reads. */
  readonly reads: number;
  /** The level each component's current owner reads. */
  readonly owners: Partial<Record<Component, number>>;
}

@ApiTags('cluster')
@Controller('shoal/v1/log-level')
export class LogLevelController {
  constructor(@Inject(Intents) private readonly intents: Intents) {}

  @Get()
  @ApiOperation({ summary: "The log's level, this build's, and what each component's owner reads" })
  @ApiOkResponse({ description: '{ level, reads, owners }' })
  get(): LogLevelView {
    const cluster = this.intents.cluster();
    const owners: Partial<Record<Component, number>> = {};
    for (const component of [...this.intents.state.terms.keys()].sort()) owners[component] = cluster.readers?.[component] ?? 1;
    return { level: cluster.logLevel ?? 1, reads: LOG_LEVEL, owners };
  }

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Raise the log level by one',
    description: "Refused (400) unless it is one above the current level and every component's owner reads it; this API's build must read it too.",
  })
  @ApiOkResponse({ description: 'The level after the raise: { level, reads, owners }' })
  @ApiBadRequestResponse({ description: 'Not the next level, or a component (or this API) does not read it yet.', schema: DOCKER_ERROR_SCHEMA })
  async raise(@Body(dockerValidationPipe(RaiseLogLevel)) body: RaiseLogLevel): Promise<LogLevelView> {
    this.intents.cluster();
    if (body.level > LOG_LEVEL) this.intents.admit({ code: 'wrong-state', reason: `this API's build reads up to log level ${LOG_LEVEL}: run a build that reads level ${body.level} here first` });
    await this.intents.submit('LogLevelRaised', { level: body.level });
    return this.get();
  }
}
