/** Nest wiring: the EVENT_LOG token, opened from the environment and closed on shutdown. */
import { Inject, Module } from '@nestjs/common';
import type { DynamicModule, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_LOG } from './port';
import type { EventLog } from './port';
import { openEventLog } from './open-event-log';

class EventLogCloser implements OnApplicationShutdown {
  constructor(@Inject(EVENT_LOG) private readonly log: EventLog) {}

  async onApplicationShutdown(): Promise<void> {
    await this.log.close();
  }
}

@Module({})
export class EventLogModule {
  static forRoot(env: NodeJS.ProcessEnv = process.env, clientId = 'shoal'): DynamicModule {
    return {
      module: EventLogModule,
      global: true,
      providers: [{ provide: EVENT_LOG, useFactory: () => openEventLog(env, clientId) }, EventLogCloser],
      exports: [EVENT_LOG],
    };
  }
}
