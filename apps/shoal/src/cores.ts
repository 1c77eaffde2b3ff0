/**
 * The control plane's component cores, as every deployment runs them: one place that says
 * which cores there are and how each is made, for the all-in-one process and for tests that
 * run them together. Ids are random in the shell; the cores stay pure.
 */
import { randomUUID } from 'node:crypto';
import { AllocatorCore, OrchestratorCore, ReaperCore, SchedulerCore, superviseUpdate } from '@shoal/domain';
import type { ComponentCore } from '@shoal/domain';

/** A task id as Docker shows them: 25 lowercase base-36 characters. */
export const newTaskId = (): string => BigInt(`0x${randomUUID().replace(/-/g, '')}`).toString(36).padStart(25, '0').slice(-25);

export const controlPlaneCores = (newId: () => string = newTaskId): ComponentCore[] => [
  new AllocatorCore({ newId }),
  new OrchestratorCore({ newId, superviseUpdate }),
  new SchedulerCore(),
  new ReaperCore(),
];
