/** Shoal's own cluster settings under /shoal/v1 (the log level, admission limits); needs Intents from the API's core. */
import { Module } from '@nestjs/common';
import { LimitsController } from './limits.controller';
import { LogLevelController } from './log-level.controller';

@Module({ controllers: [LogLevelController, LimitsController] })
export class ClusterModule {}
