/**
 * The dispatcher, on its own: `shoal run dispatcher` (or `node dist/apps/dispatcher/main.js`)
 * with KAFKA_BROKERS set (or the embedded log in $SHOAL_DATA_DIR). Agents dial
 * SHOAL_BIND_HOST:SHOAL_DISPATCHER_PORT (127.0.0.1:2377). Any number may run; the active
 * one serves the agents, the others send them to it.
 */
import 'reflect-metadata';
import { serveComponent } from '@shoal/runtime';
import { DispatcherModule } from './dispatcher.module';

serveComponent('dispatcher', DispatcherModule);
