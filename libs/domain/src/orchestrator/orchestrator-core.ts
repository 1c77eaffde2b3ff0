/**
 * The orchestrator as a component. It watches the log and, when asked, decides:
 *
 * - service created or updated → reconcile that service (replicated by slot, global by
 *   node, jobs to completion); service removed → its tasks get desired REMOVE;
 * - task ended → the restart supervisor, for that task only (no whole-service reconcile;
 *   a replicated job, which counts its completions, is the exception);
 * - node changed or removed → its tasks are restarted elsewhere (replicated) and the
 *   global services are reconciled;
 * - restart delays that ran out → the waiting replacements start;
 * - services that changed or have an update under way → the update supervisor.
 *
 * One decision is one plan: at most one TaskDesiredStatesChanged and one TasksCreated
 * (then the update supervisor's own proposals, less those on a slot or node the plan acts
 * on: those wait for the next decision). Ids come from `newId`; time from `now`.
 */
import { TaskState, isGlobal } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState, Service } from '../state';
import type { Verdict } from '../verdict';
import { slotKey } from '../reaper/slots';
import type { SlotKey } from '../reaper/slots';
import type { Decision } from './decision';
import { reconcileGlobal } from './global';
import { reconcileGlobalJob, reconcileReplicatedJob } from './jobs';
import { Plan } from './plan';
import { reconcileReplicated } from './replicated';
import { RestartSupervisor } from './restart-supervisor';
import { superviseTask } from './task-events';
import { TaskIndex } from './task-index';
import { UPDATE_IN_PROGRESS } from './update-seam';
import { superviseUpdate } from './update';
import type { UpdateSupervisor } from './update-seam';

export interface OrchestratorOptions {
  /** Makes task ids (the shell passes a random UUID maker; tests a counter). */
  readonly newId: () => string;
  /** The rolling-update supervisor (default: update/'s `superviseUpdate`; `noUpdates` leaves out-of-date tasks as they are). */
  readonly superviseUpdate?: UpdateSupervisor;
  /** Past this many task changes, a decision leaves the remaining tasks and services for the next one. */
  readonly maxPlanSize?: number;
}

const DEFAULT_MAX_PLAN_SIZE = 5_000;
/** When the update supervisor asks to be woken at a time already past, it is woken this much later. */
const PAST_WAKE_RETRY_MS = 1_000;

export class OrchestratorCore implements ComponentCore {
  readonly component = 'orchestrator' as const;
  readonly restarts = new RestartSupervisor();
  private readonly index = new TaskIndex();
  private readonly newId: () => string;
  private readonly superviseUpdate: UpdateSupervisor;
  private readonly maxPlanSize: number;

  private readonly dirtyServices = new Set<string>();
  private readonly removedServices = new Set<string>();
  private readonly dirtyNodes = new Set<string>();
  private readonly taskCandidates = new Set<string>();
  private readonly updateCandidates = new Set<string>();
  private readonly updateWake = new Map<string, number>();
  /** Services whose update supervision the last decision put off: it is not put off twice running. */
  private readonly updateDeferred = new Set<string>();
  private lastNow?: number;

  constructor(options: OrchestratorOptions) {
    this.newId = options.newId;
    this.superviseUpdate = options.superviseUpdate ?? superviseUpdate;
    this.maxPlanSize = options.maxPlanSize ?? DEFAULT_MAX_PLAN_SIZE;
  }

  /** What the orchestrator is watching, for tests and metrics. */
  get watching(): { readonly services: number; readonly nodes: number; readonly tasks: number; readonly delayed: number } {
    return {
      services: this.dirtyServices.size + this.removedServices.size,
      nodes: this.dirtyNodes.size,
      tasks: this.taskCandidates.size,
      delayed: this.restarts.waiting.length,
    };
  }

  observe(event: ShoalEvent, verdict: Verdict, state: ClusterState): void {
    if (verdict.status === 'rejected' || verdict.status === 'poison') return;
    switch (event.type) {
      case 'ServiceCreated':
      case 'ServiceUpdated':
      case 'ServiceUpdateStatusChanged':
        this.dirtyServices.add(event.data.id);
        this.updateCandidates.add(event.data.id);
        return;
      case 'ServiceRemoved':
        this.removedServices.add(event.data.id);
        this.dirtyServices.delete(event.data.id);
        this.updateCandidates.delete(event.data.id);
        this.updateDeferred.delete(event.data.id);
        this.updateWake.delete(event.data.id);
        this.restarts.forgetService(event.data.id);
        return;
      case 'NodeRegistered':
      case 'NodeSpecUpdated':
      case 'NodeRemoved':
        this.dirtyNodes.add(event.data.id);
        return;
      case 'NodeStatusChanged':
        for (const item of event.data.nodes) this.dirtyNodes.add(item.id);
        return;
      case 'TasksCreated':
        for (const item of event.data.tasks) {
          const task = state.tasks.get(item.id);
          if (!task || task.createdAt !== event.at) continue;
          this.index.add(task);
        }
        this.restarts.created(event.data.tasks, event.at, state);
        return;
      case 'TasksAssigned':
        for (const item of event.data.tasks) if (state.tasks.get(item.id)?.nodeId === item.nodeId) this.index.assign(item.id, item.nodeId);
        return;
      case 'TaskStatusesReported':
        for (const item of event.data.statuses) {
          const task = state.tasks.get(item.id);
          if (!task || task.status.state !== item.state) continue;
          if (item.state > TaskState.RUNNING) {
            this.taskCandidates.add(item.id);
            // A replicated job counts its completions: one ending may let the next task start.
            if (state.services.get(task.serviceId)?.spec.mode.kind === 'replicated-job') this.dirtyServices.add(task.serviceId);
          }
        }
        return;
      case 'TaskDesiredStatesChanged': {
        const applied = event.data.tasks.filter((item) => state.tasks.get(item.id)?.desiredState === item.desiredState);
        this.restarts.desiredChanged(applied);
        for (const item of applied) {
          this.index.setDesired(item.id, item.desiredState);
          if (item.desiredState <= TaskState.RUNNING) this.taskCandidates.add(item.id);
        }
        return;
      }
      case 'TasksRemoved':
        for (const item of event.data.tasks) {
          if (state.tasks.has(item.id)) continue;
          const ref = this.index.remove(item.id);
          this.restarts.removed(item.id);
          // A task removed while still meant to run leaves its slot to be filled again.
          if (ref && ref.desiredState <= TaskState.RUNNING && state.services.has(ref.serviceId)) this.dirtyServices.add(ref.serviceId);
        }
        return;
      case 'ClusterInitialized':
      case 'ClusterSpecUpdated':
      case 'JoinTokensRotated':
      case 'OwnershipTaken':
      case 'ServiceEndpointsAllocated':
      case 'NetworkCreated':
      case 'NetworkAllocated':
      case 'NetworkRemoved':
      case 'ConfigCreated':
      case 'ConfigUpdated':
      case 'ConfigRemoved':
      case 'TasksAllocated':
      case 'TasksAllocationFailed':
      case 'TasksUnschedulable':
        return;
      default: {
        const _exhaustive: never = event;
        return _exhaustive;
      }
    }
  }

  /**
   * Start-up (SwarmKit's CheckTasks): every service is reconciled, every task looked at
   * once — those of deleted services are removed, those on deleted, down or drained nodes
   * and those that ended are handed to the restart supervisor — and the replacements
   * waiting out a restart delay (known from the log, or adopted from the state when the
   * view was restored from a snapshot) start when it has passed. The restart history of
   * the time before such a snapshot is not rebuilt: it counts from there.
   */
  reconcileAll(state: ClusterState): void {
    this.index.rebuild(state);
    this.restarts.adopt(state);
    this.dirtyNodes.clear();
    for (const id of state.services.keys()) {
      this.dirtyServices.add(id);
      this.updateCandidates.add(id);
    }
    for (const id of this.index.serviceIds()) if (!state.services.has(id)) this.removedServices.add(id);
    for (const id of state.tasks.keys()) this.taskCandidates.add(id);
  }

  decide(state: ClusterState, now: Date): readonly Proposal[] {
    const plan = new Plan();
    this.lastNow = now.getTime();
    const d: Decision = {
      state,
      now: this.lastNow,
      newId: this.newId,
      plan,
      restarts: this.restarts,
      tasksOf: (serviceId) => this.index.tasksOf(serviceId, state),
      slotmates: slotmatesIn((serviceId) => this.index.tasksOf(serviceId, state)),
    };

    for (const id of this.removedServices) {
      if (state.services.has(id)) continue;
      for (const task of d.tasksOf(id)) plan.setDesired(task, TaskState.REMOVE, `service ${id} was removed`);
    }
    this.removedServices.clear();

    this.restarts.startDue(d);

    for (const id of this.taskCandidates) {
      if (plan.size >= this.maxPlanSize) break;
      this.taskCandidates.delete(id);
      const task = state.tasks.get(id);
      if (task) superviseTask(d, task);
    }

    if (this.dirtyNodes.size > 0) {
      for (const nodeId of this.dirtyNodes) {
        for (const id of this.index.taskIdsOnNode(nodeId)) {
          const task = state.tasks.get(id);
          if (task) superviseTask(d, task);
        }
      }
      this.dirtyNodes.clear();
      for (const service of state.services.values()) if (isGlobal(service.spec.mode)) this.dirtyServices.add(service.id);
    }

    for (const id of [...this.dirtyServices]) {
      if (plan.size >= this.maxPlanSize) break;
      this.dirtyServices.delete(id);
      const service = state.services.get(id);
      if (service) reconcileService(d, service);
    }

    return [...plan.proposals(), ...this.updates(state, now, plan)].map((proposal) => withoutServiceSpecs(proposal, state));
  }

  wakeAt(_state: ClusterState): number | undefined {
    let next = this.restarts.wakeAt(this.lastNow);
    for (const at of this.updateWake.values()) if (next === undefined || at < next) next = at;
    return next;
  }

  /**
   * The update supervisor, for each service that changed (a new spec, a new update
   * status), whose update is under way, or whose update asked to be woken now — once this
   * decision's own changes to the service have applied (it runs on a settled service, on
   * the next decision; but never put off twice running, so that a service whose tasks keep
   * restarting is still updated, or rolled back). Task changes alone cannot make a
   * service's tasks out of date, so outside an update only the services whose tasks this
   * decision changes are looked at again: a busy cluster does not pay for it per report.
   */
  private updates(state: ClusterState, now: Date, plan: Plan): Proposal[] {
    // A service whose tasks this decision changes is looked at again once they have applied:
    // an update that could not go on (its slot's task still waiting to start) may go on then.
    const due = new Set([...this.updateCandidates, ...plan.services]);
    for (const service of state.services.values()) if (service.updateStatus && UPDATE_IN_PROGRESS.has(service.updateStatus.state)) due.add(service.id);
    for (const [id, at] of this.updateWake) if (at <= now.getTime()) due.add(id);
    const proposals: Proposal[] = [];
    let footprint: PlanFootprint | undefined;
    for (const id of due) {
      if (plan.services.has(id) && !this.updateDeferred.has(id)) {
        this.updateDeferred.add(id);
        this.updateCandidates.add(id);
        continue;
      }
      this.updateDeferred.delete(id);
      this.updateCandidates.delete(id);
      if (!state.services.has(id)) {
        this.updateWake.delete(id);
        continue;
      }
      const decision = this.superviseUpdate(state, id, now, this.newId, this.index.tasksOf(id, state));
      if (plan.services.has(id)) {
        // It saw the state before this plan: what the plan already does to a slot (or node) is not done twice.
        footprint ??= planFootprint(plan, state);
        const kept = withoutPlanned(decision.proposals, footprint, state);
        proposals.push(...kept.proposals);
        if (kept.dropped) this.updateCandidates.add(id);
      } else proposals.push(...decision.proposals);
      if (decision.wakeAt === undefined) this.updateWake.delete(id);
      // A time already past would wake the runner at once, again and again: look a little later.
      else this.updateWake.set(id, decision.wakeAt > now.getTime() ? decision.wakeAt : now.getTime() + PAST_WAKE_RETRY_MS);
    }
    return proposals;
  }
}

/**
 * A new task that runs its service's spec at the service's current version goes on the log
 * without it (evolve gives it the service's): a batch of one service's tasks does not
 * carry the same spec once per task.
 */
const withoutServiceSpecs = (proposal: Proposal, state: ClusterState): Proposal => {
  if (proposal.type !== 'TasksCreated') return proposal;
  const tasks = proposal.data.tasks.map((task) => {
    const service = state.services.get(task.serviceId);
    if (task.spec === undefined || service === undefined || service.version !== task.specVersion || task.spec !== service.spec.task) return task;
    const { spec: _spec, ...rest } = task;
    return rest;
  });
  return { ...proposal, data: { ...proposal.data, tasks } };
};

/** The slots (or nodes) and the tasks one decision's plan acts on. */
interface PlanFootprint {
  readonly slots: ReadonlySet<SlotKey>;
  readonly tasks: ReadonlySet<string>;
}

const planFootprint = (plan: Plan, state: ClusterState): PlanFootprint => {
  const slots = new Set<SlotKey>();
  const tasks = new Set<string>();
  for (const proposal of plan.proposals()) {
    if (proposal.type === 'TaskDesiredStatesChanged') {
      for (const item of proposal.data.tasks) {
        tasks.add(item.id);
        const task = state.tasks.get(item.id);
        const key = task && slotKey(task);
        if (key !== undefined) slots.add(key);
      }
    } else if (proposal.type === 'TasksCreated') {
      for (const item of proposal.data.tasks) {
        const key = slotKey(item);
        if (key !== undefined) slots.add(key);
      }
    }
  }
  return { slots, tasks };
};

/**
 * The update supervisor's proposals less its work on the slots the plan already acts on:
 * a slot's shutdowns and its new task go together, so the whole slot waits for the next
 * decision, which sees the plan applied. Status changes go as they are.
 */
const withoutPlanned = (
  proposals: readonly Proposal[],
  footprint: PlanFootprint,
  state: ClusterState,
): { readonly proposals: Proposal[]; readonly dropped: boolean } => {
  const keyOfTask = (id: string): SlotKey | undefined => {
    const task = state.tasks.get(id);
    return task && slotKey(task);
  };
  // A slot is left alone when the plan acts on it, or on any task the updater would change there.
  const blocked = new Set(footprint.slots);
  for (const proposal of proposals) {
    if (proposal.type !== 'TaskDesiredStatesChanged') continue;
    for (const item of proposal.data.tasks) {
      const key = keyOfTask(item.id);
      if (footprint.tasks.has(item.id) && key !== undefined) blocked.add(key);
    }
  }
  const planned = (id: string, key: SlotKey | undefined): boolean => footprint.tasks.has(id) || (key !== undefined && blocked.has(key));
  let dropped = false;
  const out: Proposal[] = [];
  for (const proposal of proposals) {
    if (proposal.type === 'TaskDesiredStatesChanged') {
      const tasks = proposal.data.tasks.filter((item) => !planned(item.id, keyOfTask(item.id)));
      if (tasks.length < proposal.data.tasks.length) dropped = true;
      if (tasks.length > 0) out.push({ ...proposal, data: { ...proposal.data, tasks } });
    } else if (proposal.type === 'TasksCreated') {
      const tasks = proposal.data.tasks.filter((item) => !planned(item.id, slotKey(item)));
      if (tasks.length < proposal.data.tasks.length) dropped = true;
      if (tasks.length > 0) out.push({ ...proposal, data: { ...proposal.data, tasks } });
    } else out.push(proposal);
  }
  return { proposals: out, dropped };
};

/** Tasks by slot, per service, built once per decision when first asked. */
const slotmatesIn = (tasksOf: (serviceId: string) => Task[]): ((task: Task) => readonly Task[]) => {
  const byService = new Map<string, Map<SlotKey, Task[]>>();
  return (task) => {
    let slots = byService.get(task.serviceId);
    if (!slots) {
      slots = new Map();
      for (const t of tasksOf(task.serviceId)) {
        const key = slotKey(t);
        if (key === undefined) continue;
        const list = slots.get(key);
        if (list) list.push(t);
        else slots.set(key, [t]);
      }
      byService.set(task.serviceId, slots);
    }
    const key = slotKey(task);
    return key === undefined ? [task] : (slots.get(key) ?? [task]);
  };
};

const reconcileService = (d: Decision, service: Service): void => {
  const mode = service.spec.mode;
  switch (mode.kind) {
    case 'replicated':
      reconcileReplicated(d, service, mode.replicas);
      return;
    case 'global':
      reconcileGlobal(d, service);
      return;
    case 'replicated-job':
      reconcileReplicatedJob(d, service, mode.maxConcurrent, mode.totalCompletions);
      return;
    case 'global-job':
      reconcileGlobalJob(d, service);
      return;
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
};
