/**
 * The API's shared providers, global so every feature module of the API can inject them:
 * API_CONFIG (its settings), API_VIEW (its LiveView of the log: replayed before the API
 * answers anything, then following), API_WRITER (its EventWriter, component 'api') and
 * the DispatcherLocator the view keeps told of dispatcher takeovers (where logs come from).
 * It also installs Docker's error shape and input validation for every controller.
 */
import { randomUUID } from 'node:crypto';
import { BadRequestException, Inject, Injectable, Module, ValidationPipe } from '@nestjs/common';
import type { BeforeApplicationShutdown, DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_PIPE } from '@nestjs/core';
import type { ValidationError } from 'class-validator';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { LiveView, makeInstanceId } from '@shoal/runtime';
import type { ProcessMetrics } from '@shoal/runtime';
import { API_CONFIG, API_METRICS, API_VIEW, API_WRITER } from './api.tokens';
import type { ApiConfig } from './api.config';
import { ApiEventWriter } from './api-writer';
import { DispatcherLocator } from './docker/logs/dispatcher-locator';
import { DockerExceptionFilter } from './http/docker-exception.filter';
import { Intents } from './intents/intents';
import { SocketListener } from './http/socket-listener';

@Injectable()
class ApiViewCloser implements BeforeApplicationShutdown {
  constructor(@Inject(API_VIEW) private readonly view: LiveView) {}

  async beforeApplicationShutdown(): Promise<void> {
    await this.view.stop();
  }
}

/** "TaskTemplate.ContainerSpec.Image: must be a string", one per failing field. */
export const validationMessages = (errors: readonly ValidationError[], parent = ''): string[] =>
  errors.flatMap((error) => {
    const path = parent ? `${parent}.${error.property}` : error.property;
    const own = Object.values(error.constraints ?? {}).map((reason) => `${path}: ${reason.replace(new RegExp(`^${error.property} `), '')}`);
    return [...own, ...validationMessages(error.children ?? [], path)];
  });

export const validationPipe = (): ValidationPipe =>
  new ValidationPipe({
    transform: true,
    exceptionFactory: (errors) => new BadRequestException(`invalid request: ${validationMessages(errors).join('; ')}`),
  });

/** A cluster id for a log that has none yet: `POST /swarm/init` creates it under this id. */
const newClusterId = (): string => `c${randomUUID().replace(/-/g, '').slice(0, 12)}`;

@Module({})
export class ApiCoreModule {
  static forRoot(config: ApiConfig): DynamicModule {
    return {
      module: ApiCoreModule,
      global: true,
      providers: [
        { provide: API_CONFIG, useValue: config },
        { provide: DispatcherLocator, useFactory: () => new DispatcherLocator(config.joinAddr) },
        {
          provide: API_VIEW,
          inject: [EVENT_LOG, DispatcherLocator, { token: API_METRICS, optional: true }],
          useFactory: async (log: EventLog, dispatchers: DispatcherLocator, metrics?: ProcessMetrics) => {
            // The process's metrics see every record the view applies, its replay included: verdicts, time to RUNNING.
            const observed = metrics?.views.observer('api');
            const view = new LiveView(log, {
              onEvent: (event, verdict, state) => {
                dispatchers.observe(event, verdict);
                observed?.(event, verdict, state);
              },
            });
            await view.start();
            return view;
          },
        },
        {
          provide: API_WRITER,
          inject: [EVENT_LOG, API_VIEW],
          useFactory: (log: EventLog, view: LiveView) =>
            new ApiEventWriter(log, config.cluster ?? view.state.cluster?.id ?? newClusterId(), 'api', makeInstanceId('api'), { view }),
        },
        ApiViewCloser,
        Intents,
        SocketListener,
        { provide: APP_FILTER, useClass: DockerExceptionFilter },
        { provide: APP_PIPE, useFactory: validationPipe },
      ],
      exports: [API_CONFIG, API_VIEW, API_WRITER, DispatcherLocator, Intents, SocketListener],
    };
  }
}
