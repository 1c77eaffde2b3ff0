/** The log level under /shoal/v1 as a Nest module; needs Intents from the API's core. */
import { Module } from '@nestjs/common';
import { LogLevelController } from './log-level.controller';

@Module({ controllers: [LogLevelController] })
export class LogLevelModule {}
