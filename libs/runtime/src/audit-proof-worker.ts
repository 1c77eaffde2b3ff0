/**
 * A worker thread of the proof's pool (audit-proof-pool.ts): checks each segment it is
 * sent and sends back what it found, under the id it came with.
 */
import { parentPort } from 'node:worker_threads';
import './platform-sha256';
import { checkSegment } from './audit-proof-segment';
import type { Segment } from './audit-proof-segment';

parentPort!.on('message', ({ id, segment }: { id: number; segment: Segment }) => {
  parentPort!.postMessage({ id, check: checkSegment(segment) });
});
