/**
 * The cluster as the console shows it, from a state: services with their replicas running
 * and wanted, tasks by state, nodes with status, availability and load, updates under way.
 * Pure: the live feed takes it from the API's view, the time machine from a replay.
 */
import { taskStateName } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import { serviceStatuses } from '@shoal/docker-api';
import { holdsResources } from '@shoal/domain';
import type { ClusterState, Node, Service } from '@shoal/domain';
import type { ConsoleNode, ConsoleService, ConsoleTask, ConsoleView } from './console-wire';

/** At most this many tasks are listed (the newest); every task is counted. */
export const TASKS_LISTED = 200;
/** At most this many nodes are listed (those that need a look first); every node is counted. */
export const NODES_LISTED = 500;

/** Update states that mean an update or a rollback is under way. */
const UNDER_WAY = new Set(['updating', 'paused', 'rollback_started', 'rollback_paused']);

export interface ViewPoint {
  readonly position: number;
  readonly highWaterMark: number;
  readonly at?: string;
}

const serviceOf = (service: Service, status: { readonly RunningTasks: number; readonly DesiredTasks: number } | undefined): ConsoleService => ({
  id: service.id,
  name: service.spec.name,
  mode: service.spec.mode.kind,
  image: service.spec.task.container.image,
  running: status?.RunningTasks ?? 0,
  desired: status?.DesiredTasks ?? 0,
  version: service.version,
  ...(service.updateStatus
    ? { update: { state: service.updateStatus.state, ...(service.updateStatus.message ? { message: service.updateStatus.message } : {}) } }
    : {}),
});

const taskOf = (task: Task, state: ClusterState): ConsoleTask => {
  const message = task.status.err ?? task.status.message;
  return {
    id: task.id,
    service: task.serviceId,
    serviceName: state.services.get(task.serviceId)?.spec.name ?? task.serviceId,
    ...(task.slot !== undefined ? { slot: task.slot } : {}),
    ...(task.nodeId !== undefined ? { node: task.nodeId } : {}),
    state: taskStateName(task.status.state),
    desired: taskStateName(task.desiredState),
    ...(message ? { message } : {}),
  };
};

const nodeOf = (node: Node, state: ClusterState, tasksOnNode: number): ConsoleNode => {
  const reserved = state.reserved.get(node.id);
  const resources = node.description.resources;
  return {
    id: node.id,
    hostname: node.spec.name ?? node.description.hostname,
    role: node.spec.role,
    status: node.status.state,
    availability: node.spec.availability,
    tasks: tasksOnNode,
    nanoCpus: { reserved: reserved?.nanoCpus ?? 0, total: resources.nanoCpus ?? 0 },
    memoryBytes: { reserved: reserved?.memoryBytes ?? 0, total: resources.memoryBytes ?? 0 },
  };
};

/** A node that needs a look: not ready, or not taking tasks. */
const troubled = (node: Node): boolean => node.status.state !== 'ready' || node.spec.availability !== 'active';

const nodesOf = (state: ClusterState, onNode: ReadonlyMap<string, number>): Pick<ConsoleView, 'nodes' | 'nodeCount' | 'nodesByStatus'> => {
  const nodesByStatus: Record<string, number> = {};
  const first: Node[] = [];
  const rest: Node[] = [];
  for (const node of state.nodes.values()) {
    nodesByStatus[node.status.state] = (nodesByStatus[node.status.state] ?? 0) + 1;
    (troubled(node) ? first : rest).push(node);
  }
  const listed = [...first, ...rest].slice(0, NODES_LISTED);
  return { nodes: listed.map((node) => nodeOf(node, state, onNode.get(node.id) ?? 0)), nodeCount: state.nodes.size, nodesByStatus };
};

/** The console's view of `state` at `point`. */
export const consoleView = (state: ClusterState, point: ViewPoint): ConsoleView => {
  const statuses = serviceStatuses(state);
  const services = [...state.services.values()].map((service) => serviceOf(service, statuses.get(service.id)));
  const tasksByState: Record<string, number> = {};
  const onNode = new Map<string, number>();
  for (const task of state.tasks.values()) {
    const name = taskStateName(task.status.state);
    tasksByState[name] = (tasksByState[name] ?? 0) + 1;
    if (holdsResources(task)) onNode.set(task.nodeId!, (onNode.get(task.nodeId!) ?? 0) + 1);
  }
  const newest = [...state.tasks.values()].slice(-TASKS_LISTED).reverse();
  return {
    position: point.position,
    highWaterMark: point.highWaterMark,
    ...(point.at !== undefined ? { at: point.at } : {}),
    ...(state.cluster ? { cluster: state.cluster.id } : {}),
    services,
    tasksByState,
    tasks: newest.map((task) => taskOf(task, state)),
    taskCount: state.tasks.size,
    ...nodesOf(state, onNode),
    updates: services.filter((service) => service.update !== undefined && UNDER_WAY.has(service.update.state)),
  };
};
