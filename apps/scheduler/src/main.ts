/**
 * The scheduler, on its own: `shoal run scheduler` (or `node dist/apps/scheduler/main.js`)
 * with KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Any number may run; one
 * is active per partition, the others stand by with their view warm.
 */
import 'reflect-metadata';
import { serveComponent } from '@shoal/runtime';
import { SchedulerModule } from './scheduler.module';

serveComponent('scheduler', SchedulerModule);
