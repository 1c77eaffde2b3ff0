/** Docker's /configs as a Nest module; needs Intents (API_VIEW, API_WRITER) from the API's core. */
import { Module } from '@nestjs/common';
import { ConfigsController } from './configs.controller';

@Module({ controllers: [ConfigsController] })
export class ConfigsModule {}
