/**
 * Admission limits (ClusterSpec.limits over DEFAULT_ADMISSION_LIMITS): replicas per service,
 * tasks asked for by every service together, services, and a spec's size. A refusal names
 * the limit and where to change it.
 */
import { DEFAULT_ADMISSION_LIMITS } from '@shoal/contracts';
import type { AdmissionLimits, ClusterSpec, ServiceSpec } from '@shoal/contracts';
import { canonicalJson } from '../hash/canonical';
import type { ClusterState } from '../state';
import { refuse } from '../verdict';
import type { Refused } from '../verdict';

/** The limits in force: the cluster's settings over the defaults. */
export const admissionLimits = (spec: ClusterSpec | undefined): AdmissionLimits => ({ ...DEFAULT_ADMISSION_LIMITS, ...spec?.limits });

const over = (what: string, limit: keyof AdmissionLimits, value: number): Refused =>
  refuse('over-limit', `${what} is over the cluster's limit of ${value} (${limit}; GET/PUT /shoal/v1/cluster/limits)`);

/** How many tasks a service asks to run at once: its replicas, a job's maxConcurrent, a global one's nodes. */
export const tasksAskedFor = (spec: ServiceSpec, nodes: number): number => {
  switch (spec.mode.kind) {
    case 'replicated':
      return spec.mode.replicas;
    case 'replicated-job':
      return spec.mode.maxConcurrent;
    case 'global':
    case 'global-job':
      return nodes;
    default: {
      const _exhaustive: never = spec.mode;
      return _exhaustive;
    }
  }
};

/** Bytes of `text` in UTF-8. */
const utf8Bytes = (text: string): number => {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
};

/**
 * Why `spec`, for service `id` (new when `existing` is false), is over the cluster's limits;
 * undefined when it is within them.
 */
export const limitRefusal = (state: ClusterState, id: string, spec: ServiceSpec, existing: boolean): Refused | undefined => {
  const limits = admissionLimits(state.cluster?.spec);
  const { mode } = spec;
  if (mode.kind === 'replicated' && mode.replicas > limits.maxReplicasPerService) {
    return over(`replicas ${mode.replicas}`, 'maxReplicasPerService', limits.maxReplicasPerService);
  }
  if (mode.kind === 'replicated-job') {
    const most = Math.max(mode.maxConcurrent, mode.totalCompletions);
    if (most > limits.maxReplicasPerService) return over(`a job of ${mode.totalCompletions} completions, ${mode.maxConcurrent} at once,`, 'maxReplicasPerService', limits.maxReplicasPerService);
  }
  if (!existing && state.services.size + 1 > limits.maxServices) return over(`a service beyond ${state.services.size}`, 'maxServices', limits.maxServices);
  const nodes = state.nodes.size;
  let tasks = tasksAskedFor(spec, nodes);
  for (const service of state.services.values()) if (service.id !== id) tasks += tasksAskedFor(service.spec, nodes);
  if (tasks > limits.maxTasks) return over(`${tasks} tasks in the cluster`, 'maxTasks', limits.maxTasks);
  const bytes = utf8Bytes(canonicalJson(spec));
  if (bytes > limits.maxSpecBytes) return over(`a spec of ${bytes} bytes`, 'maxSpecBytes', limits.maxSpecBytes);
  return undefined;
};
