/**
 * A task named as `docker service ps` shows it: its full id, or the unique prefix the
 * table prints (12 characters). A task the reaper removed is known by its full id only.
 */
import type { ClusterState } from '@shoal/domain';

/** The full id `ref` names: itself when it is a task's id or no task's prefix, else the one task it begins. */
export const taskIdOf = (state: ClusterState, ref: string): string => {
  if (ref === '' || state.tasks.has(ref)) return ref;
  let found: string | undefined;
  for (const id of state.tasks.keys()) {
    if (!id.startsWith(ref)) continue;
    if (found !== undefined) return ref;
    found = id;
  }
  return found ?? ref;
};
