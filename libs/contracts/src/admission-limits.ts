/**
 * Admission limits: how much one service, and all of them, may ask of the cluster. A cluster
 * setting (ClusterSpec.limits, each absent field its default), so one record however large
 * what it asks for cannot take a component's memory with it: the API refuses it before it
 * writes, and evolve refuses it on the log.
 */

export interface AdmissionLimits {
  /** Most replicas one replicated service may ask for (and a replicated job's maxConcurrent and totalCompletions). */
  readonly maxReplicasPerService: number;
  /** Most tasks every service together may ask to run at once: replicas, a job's maxConcurrent, a global service's nodes. */
  readonly maxTasks: number;
  /** Most services in the cluster. */
  readonly maxServices: number;
  /** Largest service spec, in bytes of its JSON (UTF-8). */
  readonly maxSpecBytes: number;
}

/**
 * Room for Shoal's scale target (1,000 services × 1,000 replicas on 5,000 nodes) twice over,
 * and for a spec far larger than any real one (the API takes bodies of up to 2 MiB).
 */
export const DEFAULT_ADMISSION_LIMITS: AdmissionLimits = {
  maxReplicasPerService: 100_000,
  maxTasks: 2_000_000,
  maxServices: 10_000,
  maxSpecBytes: 1024 * 1024,
};

export const ADMISSION_LIMIT_NAMES: readonly (keyof AdmissionLimits)[] = ['maxReplicasPerService', 'maxTasks', 'maxServices', 'maxSpecBytes'];
