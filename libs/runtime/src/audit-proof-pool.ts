/**
 * The proof's worker threads: `size` of them checking segments (audit-proof-segment.ts).
 * Each segment goes at once to the worker with the fewest in hand, and waits in that
 * worker's queue: a worker goes on to its next segment while this thread is busy
 * replaying, instead of waiting for this thread to give it one.
 *
 * A worker runs the same code as this thread: from the sources it loads bin/register.js
 * (swc and the @shoal/* paths) before its entry, as `npm start` and bin/shoal do; from a
 * compiled build (`npm run build`: dist/libs/runtime/src) the resolver of @shoal/* the
 * build writes beside apps/ and libs/ (dist/resolve-libs.js). Both sit three folders up.
 */
import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Segment, SegmentCheck } from './audit-proof-segment';

const FROM_SOURCES = extname(__filename) === '.ts';
const ENTRY = join(__dirname, `audit-proof-worker${extname(__filename)}`);
const LOADER = join(__dirname, '..', '..', '..', FROM_SOURCES ? join('bin', 'register.js') : 'resolve-libs.js');

interface Waiting {
  resolve(check: SegmentCheck): void;
  reject(error: Error): void;
}

export class SegmentPool {
  private readonly workers: Worker[] = [];
  /** Segments sent to each worker (by index) and not yet checked. */
  private readonly inHand: number[];
  private readonly waiting = new Map<number, Waiting>();
  private failure?: Error;
  private closing = false;
  private ids = 0;

  constructor(readonly size: number) {
    for (let i = 0; i < size; i++) this.workers.push(this.start(i));
    this.inHand = this.workers.map(() => 0);
  }

  /** Segments sent and not yet checked. */
  get pending(): number {
    return this.waiting.size;
  }

  /** The segment's check; a worker's failure rejects it, however late the caller comes to await it. */
  check(segment: Segment): Promise<SegmentCheck> {
    const checked = new Promise<SegmentCheck>((resolve, reject) => {
      if (this.failure) return reject(this.failure);
      const id = ++this.ids;
      const worker = this.inHand.indexOf(Math.min(...this.inHand));
      this.waiting.set(id, { resolve, reject });
      this.inHand[worker]!++;
      this.workers[worker]!.postMessage({ id, segment });
    });
    checked.catch(() => undefined);
    return checked;
  }

  /** Stops every worker; segments not yet checked are dropped. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private start(index: number): Worker {
    const worker = new Worker(`require(${JSON.stringify(LOADER)});\nrequire(${JSON.stringify(ENTRY)});`, { eval: true, execArgv: [] });
    worker.on('message', ({ id, check }: { id: number; check: SegmentCheck }) => {
      this.inHand[index]!--;
      const waiting = this.waiting.get(id);
      this.waiting.delete(id);
      waiting?.resolve(check);
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => {
      if (!this.closing) this.fail(new Error(`a proof worker stopped (exit code ${code})`));
    });
    return worker;
  }

  /** A worker that fails fails every segment not yet checked, and every one sent after. */
  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
  }
}
