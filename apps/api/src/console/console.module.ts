/** The console as a Nest module: the page and what it reads (console.controller.ts). Needs the API's log and view, and the audit. */
import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { ConsoleController } from './console.controller';
import { ConsoleFeed } from './console-feed';
import { ConsoleHistory } from './console-history';

@Module({
  imports: [AuditModule],
  controllers: [ConsoleController],
  providers: [ConsoleFeed, ConsoleHistory],
})
export class ConsoleModule {}
