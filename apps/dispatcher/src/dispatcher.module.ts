import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { SHOAL_SETTINGS, ShoalConfigModule } from '@shoal/config';
import type { ShoalConfiguration } from '@shoal/config';
import { EVENT_LOG, EventLogModule } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import type { ClusterKeyring } from '@shoal/runtime';
import { dispatcherOptionsFromEnv } from './dispatcher.config';
import { DISPATCHER_SERVER, DispatcherHealthController } from './dispatcher-health.controller';
import { dispatcherKeyring } from './dispatcher-keyring';
import { DispatcherServer } from './dispatcher-server';

/** The dispatcher process's cluster keyring (dispatcher-keyring.ts). */
const DISPATCHER_KEYRING = Symbol('DISPATCHER_KEYRING');

@Injectable()
class DispatcherLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(
    @Inject(DISPATCHER_SERVER) private readonly server: DispatcherServer,
    @Inject(DISPATCHER_KEYRING) private readonly keyring: ClusterKeyring,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port } = await this.server.start();
    const address = this.server.address ?? `127.0.0.1:${port}`;
    new Logger('dispatcher').log({ msg: `dispatcher: agents on ${address}`, address });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server.stop();
    await this.keyring.close();
  }
}

/** The dispatcher as its own process: the log from the environment, the agents' gRPC server, its runner. */
@Module({
  imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot(process.env, 'shoal-dispatcher')],
  controllers: [DispatcherHealthController],
  providers: [
    {
      provide: DISPATCHER_KEYRING,
      inject: [EVENT_LOG, ConfigService],
      useFactory: (log: EventLog, config: ConfigService<ShoalConfiguration, true>) =>
        dispatcherKeyring(log, config.get(SHOAL_SETTINGS, { infer: true }).SHOAL_DATA_DIR, process.env, (line) => new Logger('dispatcher').log(line)),
    },
    {
      provide: DISPATCHER_SERVER,
      inject: [EVENT_LOG, DISPATCHER_KEYRING],
      useFactory: (log: EventLog, keyring: ClusterKeyring) => {
        const logger = new Logger('dispatcher');
        return new DispatcherServer(log, {
          ...dispatcherOptionsFromEnv(process.env),
          log: (line) => logger.log(line),
          secrets: () => keyring.vault(),
          rootKeys: (sealed, digest) => keyring.openRootCaKey(sealed, digest),
        });
      },
    },
    DispatcherLifecycle,
  ],
})
export class DispatcherModule {}
