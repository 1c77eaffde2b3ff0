/**
 * The update supervisor: one rolling update (or rollback) of one service, as a pure
 * decision. Called with the state and the time, it proposes the next step — start the
 * update, replace the next batch of dirty slots, finish a start-first slot, act on
 * failures, complete — and says when it next wants to look. Its progress is read back
 * from the state every time (see update-progress.ts), so nothing is lost on a restart.
 *
 * - by slot (replicated) or node (global), only slots whose tasks are dirty or doubled;
 * - parallelism slots at once (0 = all), each waits for its new task to start, then the delay;
 * - stop-first: the old task is shut down as the new one is created; start-first: the old
 *   one is shut down once the new one is RUNNING;
 * - failures of the update's own tasks within the monitor period, over the max failure
 *   ratio: pause, or roll back (a rollback is never rolled back: it pauses), or continue;
 * - after the last slot, the monitor period, then completed (or rollback completed);
 * - a paused update stays paused until the service is updated again.
 */
import { DEFAULT_UPDATE_CONFIG, TaskState, isJob } from '@shoal/contracts';
import type { NewTask, Task, UpdateConfig } from '@shoal/contracts';
import type { Proposal } from '../../component-core';
import type { ClusterState, Service } from '../../state';
import { restartPolicyOf } from '../restart-policy';
import { dirtiness } from './task-dirty';
import type { IsDirty } from './task-dirty';
import { isSlotDirty, liveSlots, slotKeyOf, tasksOf } from './update-slots';
import type { UpdateSlot } from './update-slots';
import { busySlots, failedWhileMonitored, tasksOfUpdate } from './update-progress';
import { UPDATE_MESSAGES, isPaused, isRollback, isRunning, statusChange } from './update-status';

/** What the update supervisor wants next for one service: its records, and when to look again. */
export interface UpdateStep {
  readonly proposals: readonly Proposal[];
  /** When it next needs to look even if the log does not move (delay or monitor period ends), ms since epoch. */
  readonly wakeAt?: number;
}

const NOTHING: UpdateStep = { proposals: [] };

/** The configuration the current run uses: the rollback config while rolling back. */
export const updateConfigOf = (service: Service): UpdateConfig =>
  isRollback(service.updateStatus)
    ? (service.spec.rollback ?? DEFAULT_UPDATE_CONFIG)
    : (service.spec.update ?? DEFAULT_UPDATE_CONFIG);

/**
 * The rolling update (or rollback) of one service: pure; empty proposals when there is
 * nothing to do. `tasks`, when the caller keeps its tasks indexed by service, are the
 * service's tasks in log order: the call then costs what the service has, not the
 * cluster; without them, the state's tasks are scanned for the service's.
 */
export const superviseUpdate = (
  state: ClusterState,
  serviceId: string,
  now: Date,
  newId: () => string,
  tasks?: readonly Task[],
): UpdateStep => {
  const service = state.services.get(serviceId);
  if (!service || isJob(service.spec.mode)) return NOTHING;
  const status = service.updateStatus;
  if (isPaused(status)) return NOTHING;

  const ofService = tasks ?? tasksOf(state, serviceId);
  const isDirty = dirtiness(service, state.nodes);
  const dirty = liveSlots(service, ofService, state.nodes).filter((slot) => isSlotDirty(isDirty, slot));
  const running = isRunning(status);
  if (!running && dirty.length === 0) return NOTHING;

  const config = updateConfigOf(service);
  const nowMs = now.getTime();
  const proposals: Proposal[] = [];
  if (status === undefined) {
    proposals.push(statusChange(service, { state: 'updating', message: UPDATE_MESSAGES.started, startedAt: now.toISOString() }));
  }
  const mine = tasksOfUpdate(isDirty, ofService, service.version);

  if (running && config.failureAction !== 'continue') {
    const failure = failureAction(service, dirty, mine, config);
    if (failure) return { proposals: failure };
  }

  const busy = busySlots(service, mine, config, nowMs);
  const attempted = new Set(mine.map((task) => slotKeyOf(service, task)));
  const keepers = new Map(dirty.map((slot) => [slot.key, keeperOf(isDirty, slot)]));
  // A slot whose up-to-date task has yet to start is being worked on, whichever update made that task.
  const working = new Set(busy.slots);
  for (const [key, keeper] of keepers) if (keeper && keeper.desiredState === TaskState.RUNNING && keeper.status.state < TaskState.RUNNING) working.add(key);
  let free = config.parallelism === 0 ? Number.POSITIVE_INFINITY : config.parallelism - working.size;
  const shutDown: Task[] = [];
  const created: NewTask[] = [];
  let waitingForWorker = false;
  let retryWake: number | undefined;
  // Some dirty slot still has work left for this update.
  let outstanding = false;

  for (const slot of dirty) {
    const keeper = keepers.get(slot.key);
    if (keeper) {
      outstanding = true;
      // Start-first: the old tasks go once the new one runs. Otherwise at once.
      if (config.order === 'start-first' && keeper.status.state < TaskState.RUNNING) continue;
      shutDown.push(...slot.tasks.filter((task) => task !== keeper));
      continue;
    }
    // Beyond the one task serving, a slot's stale tasks (left by an interrupted update) go at once.
    const serving = [...slot.tasks].reverse().find((task) => task.status.state === TaskState.RUNNING);
    const extras = serving ? slot.tasks.filter((task) => task !== serving) : [];
    outstanding = true;
    // A slot whose new task ended while an old one kept serving (start-first) is tried
    // again once the restart delay has passed, as a restart would be.
    const retryAt = attempted.has(slot.key) ? retryTimeOf(service, mine, slot.key) : undefined;
    if (retryAt !== undefined && retryAt > nowMs) {
      retryWake = Math.min(retryWake ?? retryAt, retryAt);
      shutDown.push(...extras);
      continue;
    }
    if (free <= 0) {
      waitingForWorker = true;
      shutDown.push(...extras);
      continue;
    }
    free--;
    created.push(replacement(service, slot, serving ?? slot.tasks[slot.tasks.length - 1]!, newId()));
    // Stop-first: the old task stops as the new one is created. Start-first: one keeps serving until the new one runs.
    shutDown.push(...(config.order === 'stop-first' || !serving ? slot.tasks : extras));
  }

  if (shutDown.length > 0) {
    const reason = isRollback(status) ? `rolled back to service version ${service.version}` : `updated to service version ${service.version}`;
    proposals.push({
      type: 'TaskDesiredStatesChanged',
      data: { tasks: shutDown.map((task) => ({ id: task.id, desiredState: TaskState.SHUTDOWN, reason })) },
    });
  }
  if (created.length > 0) proposals.push({ type: 'TasksCreated', data: { tasks: created } });

  if (outstanding) {
    const wakes = [...(waitingForWorker && busy.freeAt !== undefined ? [busy.freeAt] : []), ...(retryWake === undefined ? [] : [retryWake])];
    return { proposals, ...(wakes.length > 0 ? { wakeAt: Math.min(...wakes) } : {}) };
  }
  if (!running || busy.waiting) return { proposals };
  // Every slot is done: watch the last tasks for one monitor period, then complete.
  const completeAt = mine.length === 0 ? nowMs : (busy.lastSettledAt ?? nowMs) + config.monitorMs;
  if (nowMs < completeAt) return { proposals, wakeAt: completeAt };
  const done = isRollback(status)
    ? { state: 'rollback_completed' as const, message: UPDATE_MESSAGES.rollbackCompleted }
    : { state: 'completed' as const, message: UPDATE_MESSAGES.completed };
  proposals.push(
    statusChange(service, { ...done, ...(status?.startedAt ? { startedAt: status.startedAt } : {}), completedAt: now.toISOString() }),
  );
  return { proposals };
};

/** When a slot whose new tasks all ended may be tried again: the restart delay after the last one ended. */
const retryTimeOf = (service: Service, mine: readonly Task[], key: string): number | undefined => {
  let last: number | undefined;
  for (const task of mine) {
    if (slotKeyOf(service, task) !== key) continue;
    const at = Date.parse(task.status.at);
    last = Math.max(last ?? at, at);
  }
  return last === undefined ? undefined : last + restartPolicyOf(service.spec.task).delayMs;
};

/** The clean task a dirty slot keeps: meant to run before waiting, further along, then newest. */
const keeperOf = (isDirty: IsDirty, slot: UpdateSlot): Task | undefined => {
  let best: Task | undefined;
  for (const task of slot.tasks) {
    if (isDirty(task)) continue;
    if (
      !best ||
      task.desiredState > best.desiredState ||
      (task.desiredState === best.desiredState && task.status.state > best.status.state) ||
      (task.desiredState === best.desiredState && task.status.state === best.status.state && task.createdAt > best.createdAt)
    ) {
      best = task;
    }
  }
  return best;
};

const replacement = (service: Service, slot: UpdateSlot, old: Task, id: string): NewTask => ({
  id,
  serviceId: service.id,
  ...(slot.nodeId !== undefined ? { nodeId: slot.nodeId } : { slot: slot.slot ?? old.slot ?? 0 }),
  specVersion: service.version,
  spec: service.spec.task,
  desiredState: TaskState.RUNNING,
  replaces: old.id,
});

/**
 * Too many of the update's tasks failed while monitored: pause, or roll back to the
 * previous spec (a rollback that fails pauses instead). The ratio is over the slots the
 * update has to replace: those it replaced and those still dirty.
 */
const failureAction = (
  service: Service,
  dirty: readonly UpdateSlot[],
  mine: readonly Task[],
  config: UpdateConfig,
): Proposal[] | undefined => {
  const failures = mine
    .filter((task) => failedWhileMonitored(task, config.monitorMs))
    .sort((a, b) => Date.parse(a.status.at) - Date.parse(b.status.at) || (a.id < b.id ? -1 : 1));
  if (failures.length === 0) return undefined;
  const total = new Set([...mine.map((task) => slotKeyOf(service, task)), ...dirty.map((slot) => slot.key)]).size;
  if (failures.length / Math.max(total, 1) <= config.maxFailureRatio) return undefined;

  const first = failures[0]!.id;
  const status = service.updateStatus;
  const kept = status?.startedAt ? { startedAt: status.startedAt } : {};
  if (isRollback(status)) {
    return [statusChange(service, { state: 'rollback_paused', message: UPDATE_MESSAGES.rollbackPaused(first), ...kept })];
  }
  if (config.failureAction === 'pause') {
    return [statusChange(service, { state: 'paused', message: UPDATE_MESSAGES.paused(first), ...kept })];
  }
  if (!service.previousSpec) {
    return [statusChange(service, { state: 'paused', message: UPDATE_MESSAGES.noPreviousSpec(first), ...kept })];
  }
  // One record: the spec goes back and the status says why, or nothing happens at all.
  return [
    {
      type: 'ServiceUpdated',
      data: { id: service.id, spec: service.previousSpec, rollback: true, message: UPDATE_MESSAGES.rolledBack(first) },
      expect: { serviceVersions: { [service.id]: service.version } },
    },
  ];
};
