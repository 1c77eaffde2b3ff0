/**
 * The control plane's component cores, as every deployment runs them: one place that says
 * which cores there are and how each is made, for the all-in-one process and for tests that
 * run them together. Ids are random in the shell; the cores stay pure.
 */
import { AllocatorCore, OrchestratorCore, ReaperCore, SchedulerCore, superviseUpdate } from '@shoal/domain';
import type { ComponentCore } from '@shoal/domain';
import { newObjectId } from '@shoal/runtime';

export const controlPlaneCores = (newId: () => string = newObjectId): ComponentCore[] => [
  new AllocatorCore({ newId }),
  new OrchestratorCore({ newId, superviseUpdate }),
  new SchedulerCore(),
  new ReaperCore(),
];
