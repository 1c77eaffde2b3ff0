/** Nest wiring: the EVENT_LOG token, opened when the app starts and closed when it shuts down. */
import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { DynamicModule, OnApplicationShutdown } from '@nestjs/common';
import { EVENT_LOG } from './port';
import type { EventLog } from './port';
import { openEventLog } from './open-event-log';

export interface EventLogModuleOptions {
  /** Where KAFKA_BROKERS, SHOAL_TOPIC_PREFIX and SHOAL_DATA_DIR come from. Default process.env. */
  readonly env?: NodeJS.ProcessEnv;
  /** The Kafka client id. Default `shoal`. */
  readonly clientId?: string;
  /** Opens the log instead (tests, or a log opened elsewhere); the module still closes it. */
  readonly open?: () => Promise<EventLog>;
  /** Whether SHOAL_PARTITIONS may name several partitions (a component serving many clusters); else one. */
  readonly manyPartitions?: boolean;
}

const OPTION_KEYS = new Set(['env', 'clientId', 'open', 'manyPartitions']);

/** `forRoot(process.env, 'id')` is the older call; an object of only option keys is options. */
const isModuleOptions = (value: EventLogModuleOptions | NodeJS.ProcessEnv): value is EventLogModuleOptions =>
  Object.keys(value).every((key) => OPTION_KEYS.has(key));

@Injectable()
class EventLogCloser implements OnApplicationShutdown {
  constructor(@Inject(EVENT_LOG) private readonly log: EventLog) {}

  async onApplicationShutdown(): Promise<void> {
    await this.log.close();
  }
}

/** The start-up line: which log, and (on Kafka) the acks, idempotence and replicas its start-up check found. */
const announced = (log: EventLog): EventLog => {
  new Logger('EventLog').log(`opened ${log.description}`);
  return log;
};

@Module({})
export class EventLogModule {
  static forRoot(options?: EventLogModuleOptions): DynamicModule;
  static forRoot(env: NodeJS.ProcessEnv, clientId?: string): DynamicModule;
  static forRoot(options: EventLogModuleOptions | NodeJS.ProcessEnv = {}, clientId?: string): DynamicModule {
    const settings: EventLogModuleOptions = isModuleOptions(options) ? options : { env: options, ...(clientId ? { clientId } : {}) };
    const open = settings.open ?? (() => openEventLog(settings.env ?? process.env, settings.clientId ?? 'shoal', { manyPartitions: settings.manyPartitions ?? false }));
    return {
      module: EventLogModule,
      global: true,
      providers: [{ provide: EVENT_LOG, useFactory: () => open().then(announced) }, EventLogCloser],
      exports: [EVENT_LOG],
    };
  }
}
