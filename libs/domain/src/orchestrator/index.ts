/** The orchestrator core's public names (the deciders stay inside). */
export { OrchestratorCore } from './orchestrator-core';
export type { OrchestratorOptions } from './orchestrator-core';
export { noUpdates, UPDATE_IN_PROGRESS } from './update-seam';
export type { UpdateSupervisor } from './update-seam';
export { RESTARTED } from './restart-memory';
export { OLD_TASK_TIMEOUT_MS, mayBeRunning, oldTaskGivenUpAt, replacementStartsAt } from './replacement-start';
