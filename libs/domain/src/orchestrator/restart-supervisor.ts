/**
 * The restart supervisor: "make sure this task gets shut down, and maybe start a
 * replacement if the service's restart policy says so". A replacement goes into the same
 * slot (replicated) or onto the same node (global), desired READY; it is moved to RUNNING
 * once it may start (replacement-start.ts: the restart delay has passed and the old task
 * has stopped, or its node is down, or a minute has gone by). Time enters the log only
 * through that desired-state change. What it remembers it learns from the log
 * (restart-memory.ts); what it decides it returns as Wants.
 */
import { TaskState, isGlobal } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { Service } from '../state';
import type { DecisionContext } from './decision-context';
import { replacementTask } from './new-task';
import { invalidNode, whyInvalid } from './node-validity';
import { RESTARTED } from './restart-memory';
import { shouldRestart } from './restart-policy';
import { isRunnable } from './slots';
import { Wants } from './wants';

/**
 * Shuts `task` down and, if its policy says so, adds its replacement to `wants`. A task
 * that is itself a replacement still waiting out its delay is left alone: it is restarted
 * when that delay is over (`startDue`: if it ended, or its node can no longer run it), so
 * failures before RUNNING cannot loop fast.
 */
export const restartTask = (ctx: DecisionContext, wants: Wants, task: Task, service: Service, why: string): void => {
  if (wants.desiredOf(task) > TaskState.RUNNING || ctx.restarts.isDelayed(task.id)) return;
  restartNow(ctx, wants, task, service, why);
};

const restartNow = (ctx: DecisionContext, wants: Wants, task: Task, service: Service, why: string): void => {
  const global = isGlobal(service.spec.mode);
  const place = global ? task.nodeId : task.slot;
  const placeable = place !== undefined && (!global || ctx.state.nodes.has(place as string));
  if (!placeable || !shouldRestart(task, service, ctx.restarts.history)) {
    wants.setDesired(task, TaskState.SHUTDOWN, `${why}; not restarted (restart policy)`);
    return;
  }
  // Another task already fills the slot (a start-first update's new task, say): no replacement.
  if (slotStillFilled(ctx, wants, task, service)) {
    wants.setDesired(task, TaskState.SHUTDOWN, `${why}; its slot is filled by another task`);
    return;
  }
  if (!wants.setDesired(task, TaskState.SHUTDOWN, `${RESTARTED}: ${why}`)) return;
  wants.create(replacementTask(ctx.newId(), service, global ? { nodeId: task.nodeId as string } : { slot: task.slot as number }, task.id));
};

const slotStillFilled = (ctx: DecisionContext, wants: Wants, task: Task, service: Service): boolean => {
  const live = (other: Task): boolean => other.id !== task.id && isRunnable(wants.desiredOf(other)) && other.status.state <= TaskState.RUNNING;
  if (ctx.slotmates(task).some(live)) return true;
  const global = isGlobal(service.spec.mode);
  return wants.createdFor(service.id).some((created) => (global ? created.nodeId === task.nodeId : created.slot === task.slot));
};

/** The replacements whose time has come: to RUNNING (or restarted, if they failed meanwhile). */
export const startDue = (ctx: DecisionContext): Wants => {
  const wants = new Wants(ctx.planned);
  for (const entry of ctx.restarts.takeDue(ctx.state, ctx.now)) {
    const task = ctx.state.tasks.get(entry.taskId);
    if (!task || wants.desiredOf(task) !== TaskState.READY) continue;
    const service = ctx.state.services.get(task.serviceId);
    if (!service) continue;
    const node = task.nodeId === undefined ? undefined : ctx.state.nodes.get(task.nodeId);
    if (task.status.state > TaskState.RUNNING) restartNow(ctx, wants, task, service, `task ${task.id} ended before it was started`);
    // Its node went down, was drained or removed while it waited (and the node handling left
    // it to this moment): it is restarted elsewhere, or shut down (global), never started there.
    else if (task.nodeId !== undefined && invalidNode(node)) {
      if (isGlobal(service.spec.mode)) wants.setDesired(task, TaskState.SHUTDOWN, whyInvalid(task.nodeId, node));
      else restartNow(ctx, wants, task, service, whyInvalid(task.nodeId, node));
    } else wants.setDesired(task, TaskState.RUNNING, 'restart delay elapsed');
  }
  return wants;
};
