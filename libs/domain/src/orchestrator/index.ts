/** The orchestrator core's public names (the simulation and the reconcilers stay inside). */
export { OrchestratorCore } from './orchestrator-core';
export type { OrchestratorOptions } from './orchestrator-core';
export { noUpdates, UPDATE_IN_PROGRESS } from './update-seam';
export type { UpdateSupervisor } from './update-seam';
export { RESTARTED, OLD_TASK_TIMEOUT_MS } from './restart-supervisor';
/** For tests of the orchestrator elsewhere (apps, e2e): the in-memory cluster and the simply played other components. */
export { Simulation as OrchestratorSimulation, simulatedAllocations, simulatedAssignments, simulatedAgentReports } from './simulation';
export type { AgentBehaviour } from './simulation';
