/** Docker's /networks as a Nest module; needs Intents (API_VIEW, API_WRITER) from the API's core. */
import { Module } from '@nestjs/common';
import { NetworksController } from './networks.controller';

@Module({ controllers: [NetworksController] })
export class NetworksModule {}
