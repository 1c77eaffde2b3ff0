/** The node agent for in-process hosts (the all-in-one `npm start`) and for `shoal agent`. */
export { SimulatedFleet, labelsOfNode } from './simulated-fleet';
export type { FleetLabels, SimulatedFleetOptions } from './simulated-fleet';
export { AgentSession, JoinRefusedError } from './agent-session';
export type { AgentSessionOptions } from './agent-session';
export { DispatcherChannels } from './dispatcher-channels';
export { ExecExecutor } from './exec-executor';
export { DockerExecutor, engineDescription } from './docker/docker-executor';
export { DockerNode } from './docker/docker-node';
export type { DockerNodeOptions } from './docker/docker-node';
export { DEFAULT_ENGINE, EngineClient } from './docker/engine-client';
export { TaskLogFiles } from './task-log-file';
export type { TaskLogFilesOptions } from './task-log-file';
export { SimulatedExecutor, simulatedBehaviour } from './simulated-executor';
export type { AssignedTask, Executor, OutputStream, TaskController, TaskExit, TaskOutput } from './executor';
export { TimerWheel } from './timers';
export type { Timers } from './timers';
export { agentCommand } from './agent-command';
