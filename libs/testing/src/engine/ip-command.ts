/** `ip <args>` (iproute2; needs root for what changes the network), its stdout; a failure throws with what it said. */
import { spawnSync } from 'node:child_process';

export const ip = (args: readonly string[]): string => {
  const result = spawnSync('ip', [...args], { encoding: 'utf8' });
  if (result.error || result.status !== 0) throw new Error(`ip ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
  return result.stdout;
};
