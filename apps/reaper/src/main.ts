/**
 * The task reaper, on its own: `node -r ./bin/register.js apps/reaper/src/main.ts`
 * with KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Any number may run;
 * one is active per partition, the others stand by.
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { runUntilSignalled } from '@shoal/runtime';
import { ReaperModule } from './reaper.module';

runUntilSignalled('reaper', () => NestFactory.createApplicationContext(ReaperModule, { logger: ['error', 'warn', 'log'] }));
