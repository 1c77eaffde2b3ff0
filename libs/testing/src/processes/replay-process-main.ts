/**
 * The other process of the cross-process replay check (replay-process.ts): it is sent logs
 * as bytes, replays each from nothing with its own copy of the domain, and answers with the
 * state hash it reached. Run as `node -r ./bin/register.js` through child_process.fork.
 */
import { replay } from '@shoal/domain';
import { logFromBytes } from './log-bytes';
import type { ReplayAnswer, ReplayRequest } from './replay-process';

process.on('message', (message: ReplayRequest) => {
  let answer: ReplayAnswer;
  try {
    const projection = replay(logFromBytes(message.bytes));
    answer = { id: message.id, pid: process.pid, hash: projection.hash(), position: projection.position, tally: { ...projection.tally } };
  } catch (error) {
    answer = { id: message.id, pid: process.pid, error: error instanceof Error ? error.message : String(error) };
  }
  process.send?.(answer);
});
process.on('disconnect', () => process.exit(0));
