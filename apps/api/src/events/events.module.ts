/** Docker's /events as a Nest module; needs EVENT_LOG from the application. */
import { Module } from '@nestjs/common';
import { EventsController } from './events.controller';

@Module({ controllers: [EventsController] })
export class EventsModule {}
