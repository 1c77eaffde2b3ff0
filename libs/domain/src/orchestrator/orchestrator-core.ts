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
 * Every decider returns what it wants (Wants; the update supervisor an UpdateStep) and
 * the decision's plan merges them in the order they ran: at most one
 * TaskDesiredStatesChanged and one TasksCreated, then the update supervisor's own records,
 * less those on a slot or node the plan acts on: those wait for the next decision. Ids
 * come from `newId`; time from `now`.
 */
import { TaskState, isGlobal } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import type { ComponentCore, Proposal } from '../component-core';
import type { ClusterState, Service } from '../state';
import type { Verdict } from '../verdict';
import { slotKey } from '../reaper/slots';
import type { SlotKey } from '../reaper/slots';
import type { DecisionContext } from './decision-context';
import { reconcileGlobal } from './global';
import { reconcileGlobalJob, reconcileReplicatedJob } from './jobs';
import { Plan } from './plan';
import { reconcileReplicated } from './replicated';
import { RestartMemory } from './restart-memory';
import { startDue } from './restart-supervisor';
import { superviseTask } from './task-events';
import { TaskIndex } from './task-index';
import { UPDATE_IN_PROGRESS } from './update-seam';
import { superviseUpdate } from './update';
import type { UpdateSupervisor } from './update-seam';
import { Wants } from './wants';

export interface OrchestratorOptions {
  /** Makes task ids (the shell passes a random UUID maker; tests a counter). */
  readonly newId: () => string;
  /** The rolling-update supervisor (default: update/'s `superviseUpdate`; `noUpdates` leaves out-of-date tasks as they are). */
  readonly superviseUpdate?: UpdateSupervisor;
  /** Past this many task changes, a decision leaves the remaining tasks and services for the next one. */
  readonly maxPlanSize?: number;
}

const DEFAULT_MAX_PLAN_SIZE = 5_000;
/** Tasks (or slots) start-up learns in one step (reconcileInSteps): a millisecond or two of work. */
const LEARN_STEP = 1_000;
/** When the update supervisor asks to be woken at a time already past, it is woken this much later. */
const PAST_WAKE_RETRY_MS = 1_000;

export class OrchestratorCore implements ComponentCore {
  readonly component = 'orchestrator' as const;
  readonly idleWhileStandby = true;
  readonly restarts = new RestartMemory();
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
          this.taskCandidates.delete(item.id);
          // A task removed while still meant to run leaves its slot to be filled again.
          if (ref && ref.desiredState <= TaskState.RUNNING && state.services.has(ref.serviceId)) this.dirtyServices.add(ref.serviceId);
        }
        return;
      case 'ClusterInitialized':
      case 'ClusterSpecUpdated':
      case 'JoinTokensRotated':
      case 'OwnershipTaken':
      case 'LogLevelRaised':
      case 'RootCaRotationStarted':
      case 'AuditCheckpointed':
      case 'ServiceEndpointsAllocated':
      case 'NetworkCreated':
      case 'NetworkAllocated':
      case 'NetworkRemoved':
      case 'ConfigCreated':
      case 'ConfigUpdated':
      case 'ConfigRemoved':
      case 'SecretCreated':
      case 'SecretUpdated':
      case 'SecretRemoved':
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
    for (const _ of this.reconcileInSteps(state)) continue;
  }

  /**
   * `reconcileAll`, LEARN_STEP tasks or slots a step. Records told between steps leave it as
   * if told after: the index keeps in line what it was told of (a task already indexed is
   * not indexed again) and the steps still to come read the state as it is then; a task
   * removed meanwhile is no candidate. Only orders may differ: a task told of between steps
   * is indexed, and may be a candidate, ahead of older ones not reached yet.
   */
  *reconcileInSteps(state: ClusterState): Generator<void> {
    this.index.clear();
    for (const id of state.services.keys()) {
      this.dirtyServices.add(id);
      this.updateCandidates.add(id);
    }
    yield* this.restarts.adoptInSteps(state, LEARN_STEP);
    let done = 0;
    for (const task of state.tasks.values()) {
      if (!this.index.has(task.id)) this.index.add(task);
      if (++done % LEARN_STEP === 0) yield;
    }
    // Last, so that every task created while it learns is a candidate, as at once; and a pass
    // of its own, so that the index and the candidates do not grow their tables (tens of ms
    // each at half a million) in the same step.
    for (const id of state.tasks.keys()) {
      this.taskCandidates.add(id);
      if (++done % LEARN_STEP === 0) yield;
    }
    // Every task is a candidate and every service dirty: what a node's change asks for is done anyway.
    this.dirtyNodes.clear();
    for (const id of this.index.serviceIds()) if (!state.services.has(id)) this.removedServices.add(id);
  }

  decide(state: ClusterState, now: Date): readonly Proposal[] {
    const plan = new Plan();
    this.lastNow = now.getTime();
    const ctx: DecisionContext = {
      state,
      now: this.lastNow,
      newId: this.newId,
      planned: plan,
      restarts: this.restarts,
      tasksOf: (serviceId) => this.index.tasksOf(serviceId, state),
      slotmates: slotmatesIn((serviceId) => this.index.tasksOf(serviceId, state)),
    };

    for (const id of this.removedServices) {
      if (!state.services.has(id)) plan.merge(removeTasksOf(ctx, id));
    }
    this.removedServices.clear();

    plan.merge(startDue(ctx));

    for (const id of this.taskCandidates) {
      if (plan.size >= this.maxPlanSize) break;
      this.taskCandidates.delete(id);
      const task = state.tasks.get(id);
      if (task) plan.merge(superviseTask(ctx, task));
    }

    if (this.dirtyNodes.size > 0) {
      for (const nodeId of this.dirtyNodes) {
        for (const id of this.index.taskIdsOnNode(nodeId)) {
          const task = state.tasks.get(id);
          if (task) plan.merge(superviseTask(ctx, task));
        }
      }
      this.dirtyNodes.clear();
      for (const service of state.services.values()) if (isGlobal(service.spec.mode)) this.dirtyServices.add(service.id);
    }

    for (const id of [...this.dirtyServices]) {
      if (plan.size >= this.maxPlanSize) break;
      this.dirtyServices.delete(id);
      const service = state.services.get(id);
      if (service) plan.merge(reconcileService(ctx, service));
    }

    this.updates(state, now, plan);
    return plan.proposals().map((proposal) => withoutServiceSpecs(proposal, state));
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
  private updates(state: ClusterState, now: Date, plan: Plan): void {
    // A service whose tasks this decision changes is looked at again once they have applied:
    // an update that could not go on (its slot's task still waiting to start) may go on then.
    const due = new Set([...this.updateCandidates, ...plan.services]);
    for (const service of state.services.values()) if (service.updateStatus && UPDATE_IN_PROGRESS.has(service.updateStatus.state)) due.add(service.id);
    for (const [id, at] of this.updateWake) if (at <= now.getTime()) due.add(id);
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
      const step = this.superviseUpdate(state, id, now, this.newId, this.index.tasksOf(id, state));
      // What it left for the next decision (its work on a slot this plan acts on) is looked at then.
      if (plan.addUpdateStep(id, step, state)) this.updateCandidates.add(id);
      if (step.wakeAt === undefined) this.updateWake.delete(id);
      // A time already past would wake the runner at once, again and again: look a little later.
      else this.updateWake.set(id, step.wakeAt > now.getTime() ? step.wakeAt : now.getTime() + PAST_WAKE_RETRY_MS);
    }
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

/** A removed service's tasks: desired REMOVE. */
const removeTasksOf = (ctx: DecisionContext, serviceId: string): Wants => {
  const wants = new Wants(ctx.planned);
  for (const task of ctx.tasksOf(serviceId)) wants.setDesired(task, TaskState.REMOVE, `service ${serviceId} was removed`);
  return wants;
};

const reconcileService = (ctx: DecisionContext, service: Service): Wants => {
  const mode = service.spec.mode;
  switch (mode.kind) {
    case 'replicated':
      return reconcileReplicated(ctx, service, mode.replicas);
    case 'global':
      return reconcileGlobal(ctx, service);
    case 'replicated-job':
      return reconcileReplicatedJob(ctx, service, mode.maxConcurrent, mode.totalCompletions);
    case 'global-job':
      return reconcileGlobalJob(ctx, service);
    default: {
      const _exhaustive: never = mode;
      return _exhaustive;
    }
  }
};
