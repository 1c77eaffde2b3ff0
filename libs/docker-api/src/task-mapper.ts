/** Tasks: Shoal's task → Docker's Task object. */
import { TaskState, taskStateName } from '@shoal/contracts';
import type { Task, TaskStatus } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import type { DockerTask } from './docker-types';
import { toDockerPort, toDockerTaskSpec } from './service-mapper';

/**
 * A task's slot in Docker's numbering. A replicated job's slots are 1 … TotalCompletions on
 * the log, as a replicated service's; SwarmKit numbers them from 0, and Docker's CLI counts
 * a job's progress by slots 0 … TotalCompletions - 1, so they are shown one lower.
 */
export const dockerSlot = (task: Task): number | undefined =>
  task.slot !== undefined && task.jobIteration !== undefined ? task.slot - 1 : task.slot;

/**
 * Docker's task name: `<service>.<slot>` (replicated) or `<service>.<node id>` (global, and
 * slot 0, as SwarmKit names a replicated job's first slot), then `.<task id>` in `docker ps`.
 */
export const taskName = (state: ClusterState, task: Task): string => {
  const service = state.services.get(task.serviceId)?.spec.name ?? task.serviceId;
  return `${service}.${dockerSlot(task) || (task.nodeId ?? dockerSlot(task) ?? task.id)}`;
};

export const dockerTaskState = (state: Task['status']['state']): string => taskStateName(state).toLowerCase();

/**
 * A task's desired state in Docker's words. A job's task is desired RUNNING in Shoal until
 * it is stood down: it runs to completion, which SwarmKit writes as desired COMPLETE, and
 * Docker's clients (the CLI's job progress, `docker service ps`) read it so.
 */
export const dockerDesiredState = (task: Task): string =>
  task.jobIteration !== undefined && task.desiredState === TaskState.RUNNING ? dockerTaskState(TaskState.COMPLETE) : dockerTaskState(task.desiredState);

/**
 * A task's ContainerStatus as Docker shows it: once its executor made a container, its id,
 * PID (0 unless it runs) and exit code (0 until it exited), as SwarmKit's agent reports
 * them. A status kept on a log below level 5, or from an executor that runs no container,
 * has its exit code alone once it exited. A task its node ended without an exit code — one
 * rejected before its container was made — shows an empty one, as SwarmKit's agent reports
 * every task it ends with its controller's container status, empty when there is no
 * container. A task not yet started shows none; nor does one ORPHANED, a state its
 * dispatcher writes, not its node.
 */
export const containerStatus = (status: TaskStatus): Pick<DockerTask['Status'], 'ContainerStatus'> => {
  if (status.containerId !== undefined) return { ContainerStatus: { ContainerID: status.containerId, PID: status.pid ?? 0, ExitCode: status.exitCode ?? 0 } };
  if (status.exitCode !== undefined) return { ContainerStatus: { ExitCode: status.exitCode } };
  return status.state >= TaskState.COMPLETE && status.state <= TaskState.REJECTED ? { ContainerStatus: { ContainerID: '', PID: 0, ExitCode: 0 } } : {};
};

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
    ...(dockerSlot(task) ? { Slot: dockerSlot(task) } : {}),
    ...(nodeId ? { NodeID: nodeId } : {}),
    Status: {
      Timestamp: task.status.at,
      State: dockerTaskState(task.status.state),
      Message: task.status.message ?? '',
      ...(task.status.err ? { Err: task.status.err } : {}),
      ...containerStatus(task.status),
      PortStatus: task.ports && task.ports.length > 0 ? { Ports: task.ports.map(toDockerPort) } : {},
    },
    DesiredState: dockerDesiredState(task),
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
