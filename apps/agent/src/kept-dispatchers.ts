/**
 * The dispatchers an agent's sessions listed, kept in its state directory (`dispatchers`,
 * one host:port a line) so that an agent restarted after its --dispatcher went away can
 * still find one, as SwarmKit's node keeps the managers it last heard of.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDispatcherAddress } from '@shoal/protocol';

const FILE = 'dispatchers';

/** What an earlier run kept; none when there is no state directory, no file, or nothing in it that reads as host:port. */
export const keptDispatchers = (stateDir: string | undefined): string[] => {
  if (!stateDir) return [];
  try {
    return readFileSync(join(stateDir, FILE), 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter(isDispatcherAddress);
  } catch {
    return [];
  }
};

/**
 * Keeps each list it is given in `stateDir`, whole or not at all (written aside, then
 * renamed into place); a list it cannot keep is told to `say`, and the agent goes on.
 * Without a state directory it keeps nothing.
 */
export const dispatcherKeeper =
  (stateDir: string | undefined, say: (line: string) => void) =>
  (dispatchers: readonly string[]): void => {
    if (!stateDir) return;
    try {
      mkdirSync(stateDir, { recursive: true });
      const file = join(stateDir, FILE);
      writeFileSync(`${file}.tmp`, dispatchers.map((address) => `${address}\n`).join(''));
      renameSync(`${file}.tmp`, file);
    } catch (error) {
      say(`could not keep the dispatchers' addresses in ${stateDir}: ${(error as Error).message}`);
    }
  };
