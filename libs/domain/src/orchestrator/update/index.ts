/** The update supervisor's seam: what the orchestrator core calls. */
export { superviseUpdate, updateConfigOf } from './supervise-update';
export type { UpdateStep } from './supervise-update';
export { isTaskDirty } from './task-dirty';
