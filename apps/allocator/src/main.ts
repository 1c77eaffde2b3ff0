/**
 * The allocator, on its own: `shoal run allocator` (or `node dist/apps/allocator/main.js`)
 * with KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Any number may run; one
 * is active per partition, the others stand by.
 */
import 'reflect-metadata';
import { serveComponent } from '@shoal/runtime';
import { AllocatorModule } from './allocator.module';

serveComponent('allocator', AllocatorModule);
