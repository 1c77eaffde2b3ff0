/**
 * Shoal's records as Docker's event messages (`docker events`): services, nodes and
 * networks as Docker's swarm events describe them (create / update / remove, with
 * `name` and the `.old` / `.new` attributes of what changed), plus the life of tasks,
 * which Docker does not stream and Shoal's log has. Refused records (and refused items of
 * a batch) did not happen, so they give no event. Pure: the state before and after the
 * record come in.
 */
import { taskStateName } from '@shoal/contracts';
import type { ShoalEvent, Task } from '@shoal/contracts';
import { itemApplied } from '@shoal/domain';
import type { ClusterState, Config, Network, Node, Secret, Service, Verdict } from '@shoal/domain';
import { dockerSlot } from '@shoal/docker-api';

export type DockerEventType = 'service' | 'node' | 'network' | 'config' | 'secret' | 'task';
export type DockerEventAction = 'create' | 'update' | 'remove';

export interface DockerEventMessage {
  readonly Type: DockerEventType;
  readonly Action: DockerEventAction;
  readonly Actor: { readonly ID: string; readonly Attributes: Readonly<Record<string, string>> };
  readonly scope: 'swarm';
  /** Unix seconds. */
  readonly time: number;
  /** Unix nanoseconds (beyond 2^53: serialize with `encodeDockerEvent`). */
  readonly timeNano: bigint;
}

/** What the record's entities were before it applied (entities are replaced, never mutated). */
export interface Before {
  readonly services: ReadonlyMap<string, Service>;
  readonly nodes: ReadonlyMap<string, Node>;
  readonly networks: ReadonlyMap<string, Network>;
  readonly configs: ReadonlyMap<string, Config>;
  readonly secrets: ReadonlyMap<string, Secret>;
  readonly tasks: ReadonlyMap<string, Task>;
}

const pick = <T>(from: ReadonlyMap<string, T>, ids: readonly string[]): Map<string, T> => {
  const out = new Map<string, T>();
  for (const id of ids) {
    const value = from.get(id);
    if (value !== undefined) out.set(id, value);
  }
  return out;
};

/** Takes, before evolve applies `event`, the entities it may change. */
export const captureBefore = (state: ClusterState, event: ShoalEvent): Before => {
  const empty = new Map();
  const only = (taken: Partial<Before>): Before => ({ services: empty, nodes: empty, networks: empty, configs: empty, secrets: empty, tasks: empty, ...taken });
  switch (event.type) {
    case 'ServiceUpdated':
    case 'ServiceRemoved':
    case 'ServiceUpdateStatusChanged':
      return only({ services: pick(state.services, [event.data.id]) });
    case 'ServiceEndpointsAllocated':
      return only({ services: pick(state.services, event.data.services.map((s) => s.id)) });
    case 'NetworkRemoved':
      return only({ networks: pick(state.networks, [event.data.id]) });
    case 'ConfigRemoved':
      return only({ configs: pick(state.configs, [event.data.id]) });
    case 'SecretRemoved':
      return only({ secrets: pick(state.secrets, [event.data.id]) });
    case 'NodeStatusChanged':
      return only({ nodes: pick(state.nodes, event.data.nodes.map((n) => n.id)) });
    case 'NodeSpecUpdated':
    case 'NodeRemoved':
      return only({ nodes: pick(state.nodes, [event.data.id]) });
    case 'TaskStatusesReported':
      return only({ tasks: pick(state.tasks, event.data.statuses.map((s) => s.id)) });
    case 'TasksAllocated':
    case 'TasksAllocationFailed':
    case 'TasksAssigned':
    case 'TasksUnschedulable':
    case 'TaskDesiredStatesChanged':
    case 'TasksRemoved':
      return only({ tasks: pick(state.tasks, event.data.tasks.map((t) => t.id)) });
    default:
      return only({});
  }
};

/** A task's name as Docker shows it: <service>.<slot or node>.<task id> (a job's slots from 0, slot 0 by its node). */
export const taskName = (task: Task, services: ReadonlyMap<string, Service>): string =>
  `${services.get(task.serviceId)?.spec.name ?? task.serviceId}.${dockerSlot(task) || (task.nodeId ?? dockerSlot(task) ?? '')}.${task.id}`;

const changed = (attributes: Record<string, string>, key: string, old: string | undefined, now: string | undefined): void => {
  if (old === now) return;
  if (old !== undefined) attributes[`${key}.old`] = old;
  if (now !== undefined) attributes[`${key}.new`] = now;
};

/**
 * The tasks a batch names, each once and in first-seen order: an agent's report carries
 * every state a task passed through (ACCEPTED … RUNNING), and the record is one change
 * of that task, from its state before to its state after.
 */
const distinctIds = (items: readonly { readonly id: string }[]): string[] => [...new Set(items.map((item) => item.id))];

const replicasOf = (service: Service | undefined): string | undefined =>
  service?.spec.mode.kind === 'replicated' ? String(service.spec.mode.replicas) : undefined;

export const dockerEventsOf = (event: ShoalEvent, verdict: Verdict, before: Before, after: ClusterState): DockerEventMessage[] => {
  if (verdict.status === 'rejected' || verdict.status === 'poison') return [];
  const ms = Date.parse(event.at);
  if (!Number.isFinite(ms)) return [];
  const at = { time: Math.floor(ms / 1000), timeNano: BigInt(ms) * 1_000_000n };
  const message = (Type: DockerEventType, Action: DockerEventAction, ID: string, Attributes: Record<string, string>): DockerEventMessage => ({
    Type,
    Action,
    Actor: { ID, Attributes },
    scope: 'swarm',
    ...at,
  });
  const taskUpdate = (id: string, attributes: (old: Task | undefined, now: Task) => Record<string, string>): DockerEventMessage[] => {
    if (!itemApplied(verdict, id)) return [];
    const now = after.tasks.get(id);
    if (!now) return [];
    const old = before.tasks.get(id);
    return [message('task', 'update', id, { name: taskName(now, after.services), 'service.id': now.serviceId, ...attributes(old, now) })];
  };
  const stateChange = (old: Task | undefined, now: Task): Record<string, string> => {
    const attributes: Record<string, string> = {};
    changed(attributes, 'state', old && taskStateName(old.status.state), taskStateName(now.status.state));
    if (now.nodeId) attributes.node = now.nodeId;
    if (now.status.err) attributes.error = now.status.err;
    return attributes;
  };

  switch (event.type) {
    case 'ServiceCreated':
      return [message('service', 'create', event.data.id, { name: event.data.spec.name })];
    case 'ServiceUpdated': {
      const old = before.services.get(event.data.id);
      const now = after.services.get(event.data.id);
      const attributes: Record<string, string> = { name: event.data.spec.name };
      changed(attributes, 'image', old?.spec.task.container.image, event.data.spec.task.container.image);
      changed(attributes, 'replicas', replicasOf(old), replicasOf(now));
      if (event.data.rollback) attributes.rollback = 'true';
      return [message('service', 'update', event.data.id, attributes)];
    }
    case 'ServiceUpdateStatusChanged': {
      const old = before.services.get(event.data.id);
      const attributes: Record<string, string> = { name: old?.spec.name ?? event.data.id };
      changed(attributes, 'updatestate', old?.updateStatus?.state, event.data.status?.state);
      return [message('service', 'update', event.data.id, attributes)];
    }
    case 'ServiceRemoved':
      return [message('service', 'remove', event.data.id, { name: before.services.get(event.data.id)?.spec.name ?? event.data.id })];
    // A swarm network's events name it and nothing else (Docker's `type` attribute is a
    // local network's); its allocation is an update, as SwarmKit's allocator writes it.
    case 'NetworkCreated':
      return [message('network', 'create', event.data.id, { name: event.data.spec.name })];
    case 'NetworkAllocated': {
      const now = after.networks.get(event.data.id);
      return now ? [message('network', 'update', event.data.id, { name: now.spec.name })] : [];
    }
    case 'NetworkRemoved':
      return [message('network', 'remove', event.data.id, { name: before.networks.get(event.data.id)?.spec.name ?? event.data.id })];
    case 'ConfigCreated':
      return [message('config', 'create', event.data.id, { name: event.data.spec.name })];
    case 'ConfigUpdated':
      return [message('config', 'update', event.data.id, { name: event.data.spec.name })];
    case 'ConfigRemoved':
      return [message('config', 'remove', event.data.id, { name: before.configs.get(event.data.id)?.spec.name ?? event.data.id })];
    case 'SecretCreated':
      return [message('secret', 'create', event.data.id, { name: event.data.spec.name })];
    case 'SecretUpdated':
      return [message('secret', 'update', event.data.id, { name: event.data.spec.name })];
    case 'SecretRemoved':
      return [message('secret', 'remove', event.data.id, { name: before.secrets.get(event.data.id)?.spec.name ?? event.data.id })];
    case 'NodeRegistered':
      return [message('node', 'create', event.data.id, { name: event.data.description.hostname, role: event.data.role })];
    case 'NodeStatusChanged':
      return event.data.nodes.flatMap((item) => {
        if (!itemApplied(verdict, item.id)) return [];
        const old = before.nodes.get(item.id);
        const attributes: Record<string, string> = { name: old?.description.hostname ?? item.id };
        changed(attributes, 'state', old?.status.state, item.state);
        return [message('node', 'update', item.id, attributes)];
      });
    case 'NodeSpecUpdated': {
      const old = before.nodes.get(event.data.id);
      const attributes: Record<string, string> = { name: event.data.spec.name ?? old?.description.hostname ?? event.data.id };
      changed(attributes, 'availability', old?.spec.availability, event.data.spec.availability);
      changed(attributes, 'role', old?.spec.role, event.data.spec.role);
      return [message('node', 'update', event.data.id, attributes)];
    }
    case 'NodeRemoved':
      return [message('node', 'remove', event.data.id, { name: before.nodes.get(event.data.id)?.description.hostname ?? event.data.id })];
    case 'TasksCreated':
      return event.data.tasks.flatMap((item) => {
        const task = after.tasks.get(item.id);
        if (!itemApplied(verdict, item.id) || !task) return [];
        return [
          message('task', 'create', item.id, {
            name: taskName(task, after.services),
            'service.id': task.serviceId,
            ...(task.slot !== undefined ? { slot: String(dockerSlot(task)) } : {}),
            ...(task.nodeId ? { node: task.nodeId } : {}),
            desiredstate: taskStateName(task.desiredState),
          }),
        ];
      });
    case 'TasksAllocated':
    case 'TasksAssigned':
    case 'TasksUnschedulable':
    case 'TasksAllocationFailed':
      return distinctIds(event.data.tasks).flatMap((id) => taskUpdate(id, stateChange));
    case 'TaskStatusesReported':
      return distinctIds(event.data.statuses).flatMap((id) => taskUpdate(id, stateChange));
    case 'TaskDesiredStatesChanged':
      return distinctIds(event.data.tasks).flatMap((id) =>
        taskUpdate(id, (old, now) => {
          const attributes: Record<string, string> = {};
          changed(attributes, 'desiredstate', old && taskStateName(old.desiredState), taskStateName(now.desiredState));
          return attributes;
        }),
      );
    case 'TasksRemoved':
      return event.data.tasks.flatMap((item) => {
        const old = before.tasks.get(item.id);
        if (!itemApplied(verdict, item.id) || !old) return [];
        return [message('task', 'remove', item.id, { name: taskName(old, after.services), 'service.id': old.serviceId })];
      });
    case 'ClusterInitialized':
    case 'ClusterSpecUpdated':
    case 'JoinTokensRotated':
    case 'OwnershipTaken':
    case 'LogLevelRaised':
    case 'RootCaRotationStarted':
    case 'AuditCheckpointed':
      return [];
    // SwarmKit's allocator writes a service whose allocation (VIPs, published ports) changes:
    // an update naming it. An endpoint allocated again as it was (after a spec update) is no change.
    case 'ServiceEndpointsAllocated':
      return event.data.services.flatMap((item) => {
        const now = after.services.get(item.id);
        if (!itemApplied(verdict, item.id) || !now) return [];
        if (JSON.stringify(before.services.get(item.id)?.endpoint) === JSON.stringify(now.endpoint)) return [];
        return [message('service', 'update', item.id, { name: now.spec.name })];
      });
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** One event as a line of Docker's stream (timeNano written exactly, past 2^53). */
export const encodeDockerEvent = (message: DockerEventMessage): string =>
  // Written field by field (a replay of the past writes millions of these): the same text
  // as JSON.stringify of the message, but timeNano, written exactly past 2^53.
  `{"Type":${JSON.stringify(message.Type)},"Action":${JSON.stringify(message.Action)},"Actor":{"ID":${JSON.stringify(message.Actor.ID)},"Attributes":${JSON.stringify(message.Actor.Attributes)}},"scope":${JSON.stringify(message.scope)},"time":${JSON.stringify(message.time)},"timeNano":${message.timeNano.toString()}}\n`;
