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

/** Keeps the list, whole or not at all (written aside, then renamed into place). */
export const keepDispatchers = (stateDir: string, dispatchers: readonly string[]): void => {
  mkdirSync(stateDir, { recursive: true });
  const file = join(stateDir, FILE);
  writeFileSync(`${file}.tmp`, dispatchers.map((address) => `${address}\n`).join(''));
  renameSync(`${file}.tmp`, file);
};
