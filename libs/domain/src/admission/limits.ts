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

/** UTF-8, as the hash writes its input (hash/sha256.ts). */
const encoder = new TextEncoder();

/** How far one replicated service (or job) reaches toward maxReplicasPerService: replicas, or a job's completions and concurrency. */
const replicasAskedFor = (spec: ServiceSpec): number => {
  const { mode } = spec;
  if (mode.kind === 'replicated') return mode.replicas;
  if (mode.kind === 'replicated-job') return Math.max(mode.maxConcurrent, mode.totalCompletions);
  return 0;
};

const specBytes = (spec: ServiceSpec): number => encoder.encode(canonicalJson(spec)).length;

/**
 * Why `spec`, for service `id`, is over the cluster's limits; undefined when it is within
 * them. `current` is the spec it replaces (absent for a create). A limit holds back growth:
 * an update past one that asks for no more than `current` did is admitted, so a limit lowered
 * below what a cluster runs never stops a service being scaled down or changed.
 */
export const limitRefusal = (state: ClusterState, id: string, spec: ServiceSpec, current: ServiceSpec | undefined): Refused | undefined => {
  const limits = admissionLimits(state.cluster?.spec);
  const { mode } = spec;
  const replicas = replicasAskedFor(spec);
  if (replicas > limits.maxReplicasPerService && (!current || replicas > replicasAskedFor(current))) {
    const what = mode.kind === 'replicated-job' ? `a job of ${mode.totalCompletions} completions, ${mode.maxConcurrent} at once,` : `replicas ${replicas}`;
    return over(what, 'maxReplicasPerService', limits.maxReplicasPerService);
  }
  if (!current && state.services.size + 1 > limits.maxServices) return over(`a service beyond ${state.services.size}`, 'maxServices', limits.maxServices);
  const nodes = state.nodes.size;
  const asked = tasksAskedFor(spec, nodes);
  if (!current || asked > tasksAskedFor(current, nodes)) {
    let tasks = asked;
    for (const service of state.services.values()) if (service.id !== id) tasks += tasksAskedFor(service.spec, nodes);
    if (tasks > limits.maxTasks) return over(`${tasks} tasks in the cluster`, 'maxTasks', limits.maxTasks);
  }
  const bytes = specBytes(spec);
  if (bytes > limits.maxSpecBytes && (!current || bytes > specBytes(current))) return over(`a spec of ${bytes} bytes`, 'maxSpecBytes', limits.maxSpecBytes);
  return undefined;
};
