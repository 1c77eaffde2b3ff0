/**
 * Task states, ordered as SwarmKit orders them (its lamport-clock states): a task's
 * observed state only ever moves forward, so "is it past running" reads `state > RUNNING`.
 */
export const TaskState = {
  NEW: 0,
  PENDING: 64,
  ASSIGNED: 192,
  ACCEPTED: 256,
  PREPARING: 320,
  READY: 384,
  STARTING: 448,
  RUNNING: 512,
  COMPLETE: 576,
  SHUTDOWN: 640,
  FAILED: 704,
  REJECTED: 768,
  REMOVE: 800,
  ORPHANED: 832,
} as const;

export type TaskStateName = keyof typeof TaskState;
export type TaskState = (typeof TaskState)[TaskStateName];

const NAMES = new Map<number, TaskStateName>(
  (Object.keys(TaskState) as TaskStateName[]).map((name) => [TaskState[name], name]),
);

export const isTaskState = (value: unknown): value is TaskState =>
  typeof value === 'number' && NAMES.has(value);

export const taskStateName = (state: TaskState): TaskStateName => NAMES.get(state) ?? 'NEW';

export const parseTaskState = (name: string): TaskState | undefined => {
  const upper = name.toUpperCase();
  return upper in TaskState ? TaskState[upper as TaskStateName] : undefined;
};

/** The task has stopped for good: it will never run again. */
export const isTerminal = (state: TaskState): boolean => state > TaskState.RUNNING;

/** States an agent reports; everything before ACCEPTED belongs to the managers. */
export const isAgentReportable = (state: TaskState): boolean =>
  state >= TaskState.ACCEPTED && state !== TaskState.REMOVE;

/** States the managers may set as a task's desired state. */
export const DESIRED_STATES: readonly TaskState[] = [
  TaskState.READY,
  TaskState.RUNNING,
  TaskState.COMPLETE,
  TaskState.SHUTDOWN,
  TaskState.REMOVE,
];
export const isDesiredState = (value: unknown): value is TaskState =>
  isTaskState(value) && DESIRED_STATES.includes(value);
