/** Tasks: Shoal's task → Docker's Task object. */
import { taskStateName } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import type { DockerTask } from './docker-types';
import { toDockerPort, toDockerTaskSpec } from './service-mapper';

/** Docker's task name: `<service>.<slot>` (replicated) or `<service>.<node id>` (global), then `.<task id>` in `docker ps`. */
export const taskName = (state: ClusterState, task: Task): string => {
  const service = state.services.get(task.serviceId)?.spec.name ?? task.serviceId;
  return `${service}.${task.slot ?? task.nodeId ?? task.id}`;
};

export const dockerTaskState = (state: Task['status']['state']): string => taskStateName(state).toLowerCase();

export const toDockerTask = (state: ClusterState, task: Task): DockerTask => {
  const nodeId = task.nodeId;
  return {
    ID: task.id,
    Version: { Index: 1 },
    CreatedAt: task.createdAt,
    UpdatedAt: task.status.at,
    Name: taskName(state, task),
    Labels: {},
    Spec: toDockerTaskSpec(task.spec),
    ServiceID: task.serviceId,
    ...(task.slot !== undefined ? { Slot: task.slot } : {}),
    ...(nodeId ? { NodeID: nodeId } : {}),
    Status: {
      Timestamp: task.status.at,
      State: dockerTaskState(task.status.state),
      Message: task.status.message ?? '',
      ...(task.status.err ? { Err: task.status.err } : {}),
      ...(task.status.exitCode !== undefined ? { ContainerStatus: { ExitCode: task.status.exitCode } } : {}),
      PortStatus: task.ports && task.ports.length > 0 ? { Ports: task.ports.map(toDockerPort) } : {},
    },
    DesiredState: dockerTaskState(task.desiredState),
    ...(task.attachments && task.attachments.length > 0
      ? {
          NetworksAttachments: task.attachments.map((attachment) => {
            const network = state.networks.get(attachment.network);
            return {
              Network: { ID: attachment.network, ...(network ? { Spec: { Name: network.spec.name } } : {}) },
              Addresses: [...attachment.addresses],
            };
          }),
        }
      : {}),
    ...(task.jobIteration !== undefined ? { JobIteration: { Index: task.jobIteration } } : {}),
  };
};
