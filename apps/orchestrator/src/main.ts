/**
 * The orchestrator, on its own: `shoal run orchestrator` (or `node dist/apps/orchestrator/main.js`)
 * with KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Any number may run; one
 * is active per partition, the others stand by with their views warm.
 */
import 'reflect-metadata';
import { serveComponent } from '@shoal/runtime';
import { OrchestratorModule } from './orchestrator.module';

serveComponent('orchestrator', OrchestratorModule);
