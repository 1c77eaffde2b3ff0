import { Inject, Injectable, Logger, Module } from '@nestjs/common';
import type { BeforeApplicationShutdown, OnApplicationBootstrap } from '@nestjs/common';
import { EVENT_LOG, EventLogModule } from '@shoal/eventlog';
import type { EventLog } from '@shoal/eventlog';
import { openSecretVault } from '@shoal/runtime';
import { dispatcherOptionsFromEnv } from './dispatcher.config';
import { DISPATCHER_SERVER, DispatcherHealthController } from './dispatcher-health.controller';
import { DispatcherServer } from './dispatcher-server';

@Injectable()
class DispatcherLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  constructor(@Inject(DISPATCHER_SERVER) private readonly server: DispatcherServer) {}

  async onApplicationBootstrap(): Promise<void> {
    const { port } = await this.server.start();
    const address = this.server.address ?? `127.0.0.1:${port}`;
    new Logger('dispatcher').log({ msg: `dispatcher: agents on ${address}`, address });
  }

  async beforeApplicationShutdown(): Promise<void> {
    await this.server.stop();
  }
}

/** The dispatcher as its own process: the log from the environment, the agents' gRPC server, its runner. */
@Module({
  imports: [EventLogModule.forRoot(process.env, 'shoal-dispatcher')],
  controllers: [DispatcherHealthController],
  providers: [
    {
      provide: DISPATCHER_SERVER,
      inject: [EVENT_LOG],
      useFactory: (log: EventLog) => {
        const logger = new Logger('dispatcher');
        const dataDir = process.env.SHOAL_DATA_DIR?.trim() || '.shoal';
        return new DispatcherServer(log, { ...dispatcherOptionsFromEnv(process.env), log: (line) => logger.log(line), secrets: () => openSecretVault(log, dataDir) });
      },
    },
    DispatcherLifecycle,
  ],
})
export class DispatcherModule {}
