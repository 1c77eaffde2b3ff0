import { Module } from '@nestjs/common';
import type { DynamicModule } from '@nestjs/common';
import { ShoalConfigModule } from '@shoal/config';
import { EventLogModule } from '@shoal/eventlog';
import { ShoalRunner } from './shoal.runner';
import { SHOAL_CONFIG } from './shoal.config';
import type { ShoalConfig } from './shoal.config';

/** The all-in-one process: the log, the view and (as they arrive) every component. */
@Module({})
export class ShoalModule {
  static forRoot(config: ShoalConfig): DynamicModule {
    return {
      module: ShoalModule,
      imports: [ShoalConfigModule.forRoot(), EventLogModule.forRoot({ ...process.env, SHOAL_DATA_DIR: config.dataDir, KAFKA_BROKERS: config.brokers.join(',') })],
      providers: [{ provide: SHOAL_CONFIG, useValue: config }, ShoalRunner],
    };
  }
}
