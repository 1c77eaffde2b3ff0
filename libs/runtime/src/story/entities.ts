/**
 * Which entities a record touches (service, task, node, network, config and secret ids, the cluster's id),
 * and, for batch records, the item that concerns one of them. Pure: the audit's index
 * and its task history, and the story index, are built from these.
 */
import type { ShoalEvent } from '@shoal/contracts';

export type EntityKind = 'cluster' | 'service' | 'task' | 'node' | 'network' | 'config' | 'secret';

export interface EntityRef {
  readonly kind: EntityKind;
  readonly id: string;
}

const refs = (kind: EntityKind, ids: readonly string[]): EntityRef[] => ids.map((id) => ({ kind, id }));

/** Every entity the record names, in the order it names them (a task's service and node included). */
export const entitiesOf = (event: ShoalEvent): EntityRef[] => {
  switch (event.type) {
    case 'ClusterInitialized':
    case 'ClusterSpecUpdated':
    case 'JoinTokensRotated':
    case 'OwnershipTaken':
    case 'LogLevelRaised':
    case 'RootCaRotationStarted':
    case 'AuditCheckpointed':
      return [{ kind: 'cluster', id: event.cluster }];
    case 'ServiceCreated':
    case 'ServiceUpdated':
      // A secret's story names the services that took it up (a secret is audited by its uses).
      return [{ kind: 'service', id: event.data.id }, ...refs('secret', (event.data.spec.task.container.secrets ?? []).map((ref) => ref.secretId))];
    case 'ServiceRemoved':
    case 'ServiceUpdateStatusChanged':
      return [{ kind: 'service', id: event.data.id }];
    case 'ServiceEndpointsAllocated':
      return refs('service', event.data.services.map((s) => s.id));
    case 'NetworkCreated':
    case 'NetworkAllocated':
    case 'NetworkRemoved':
      return [{ kind: 'network', id: event.data.id }];
    case 'ConfigCreated':
    case 'ConfigUpdated':
    case 'ConfigRemoved':
      return [{ kind: 'config', id: event.data.id }];
    case 'SecretCreated':
    case 'SecretUpdated':
    case 'SecretRemoved':
      return [{ kind: 'secret', id: event.data.id }];
    case 'NodeRegistered':
    case 'NodeSpecUpdated':
    case 'NodeRemoved':
      return [{ kind: 'node', id: event.data.id }];
    case 'NodeStatusChanged':
      return refs('node', event.data.nodes.map((n) => n.id));
    case 'TasksCreated':
      return event.data.tasks.flatMap((t) => [
        { kind: 'task' as const, id: t.id },
        { kind: 'service' as const, id: t.serviceId },
        ...(t.nodeId ? [{ kind: 'node' as const, id: t.nodeId }] : []),
      ]);
    case 'TasksAssigned':
      return event.data.tasks.flatMap((t) => [{ kind: 'task' as const, id: t.id }, { kind: 'node' as const, id: t.nodeId }]);
    case 'TaskStatusesReported':
      return [...refs('task', event.data.statuses.map((s) => s.id)), { kind: 'node', id: event.data.nodeId }];
    case 'TasksAllocated':
    case 'TasksAllocationFailed':
    case 'TasksUnschedulable':
    case 'TaskDesiredStatesChanged':
    case 'TasksRemoved':
      return refs('task', event.data.tasks.map((t) => t.id));
    default: {
      const _exhaustive: never = event;
      return _exhaustive;
    }
  }
};

/** The distinct ids a record touches. */
export const entityIdsOf = (event: ShoalEvent): string[] => [...new Set(entitiesOf(event).map((ref) => ref.id))];

/** The part of a record that concerns task `taskId`: its batch item, or the whole data for single-entity records. */
export const taskItemOf = (event: ShoalEvent, taskId: string): unknown => {
  switch (event.type) {
    case 'TasksCreated':
    case 'TasksAllocated':
    case 'TasksAllocationFailed':
    case 'TasksAssigned':
    case 'TasksUnschedulable':
    case 'TaskDesiredStatesChanged':
    case 'TasksRemoved':
      return (event.data.tasks as readonly { readonly id: string }[]).find((t) => t.id === taskId);
    case 'TaskStatusesReported':
      return event.data.statuses.find((s) => s.id === taskId);
    default:
      return event.data;
  }
};
