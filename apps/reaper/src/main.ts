/**
 * The task reaper, on its own: `shoal run reaper` (or `node dist/apps/reaper/main.js`) with
 * KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Any number may run; one is
 * active per partition, the others stand by.
 */
import 'reflect-metadata';
import { serveComponent } from '@shoal/runtime';
import { ReaperModule } from './reaper.module';

serveComponent('reaper', ReaperModule);
