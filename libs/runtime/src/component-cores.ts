/**
 * The component cores, made in one place: the all-in-one process, each component's own
 * process and the benchmarks get the same class with the same settings for a component,
 * and ids in Docker's shape (newObjectId) unless the caller brings its own maker. Ids are
 * random here in the shell; the cores stay pure.
 */
import { AllocatorCore, DispatcherCore, OrchestratorCore, ReaperCore, SchedulerCore, SessionTable, superviseUpdate } from '@shoal/domain';
import type { ComponentCore } from '@shoal/domain';
import { newObjectId } from './object-id';

/** The control plane's cores that need nothing but the log, in the order the all-in-one process starts them. */
export const CONTROL_PLANE_COMPONENTS = ['allocator', 'orchestrator', 'scheduler', 'reaper'] as const;
export type ControlPlaneComponent = (typeof CONTROL_PLANE_COMPONENTS)[number];
/** Every component that runs a core on the log: the control plane's, and the dispatcher's, which also serves the agents. */
export type CoreComponent = ControlPlaneComponent | 'dispatcher';
export const CORE_COMPONENTS: readonly CoreComponent[] = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'];

export interface CoreSettings {
  /** Makes the ids of what a core creates (tasks, the ingress network); default newObjectId. */
  readonly newId?: () => string;
  /** The dispatcher's agent sessions; default a table of its own. */
  readonly sessions?: SessionTable;
  /** Lines worth logging (what the dispatcher leaves out). */
  readonly log?: (line: string) => void;
}

/** The core of `component`, as every deployment runs it. */
export function componentCore(component: 'dispatcher', settings?: CoreSettings): DispatcherCore;
export function componentCore(component: CoreComponent, settings?: CoreSettings): ComponentCore;
export function componentCore(component: CoreComponent, settings: CoreSettings = {}): ComponentCore {
  const newId = settings.newId ?? newObjectId;
  switch (component) {
    case 'allocator':
      return new AllocatorCore({ newId });
    case 'orchestrator':
      return new OrchestratorCore({ newId, superviseUpdate });
    case 'scheduler':
      return new SchedulerCore();
    case 'reaper':
      return new ReaperCore();
    case 'dispatcher':
      return new DispatcherCore(settings.sessions ?? new SessionTable(), settings.log ? { log: settings.log } : {});
    default: {
      const _exhaustive: never = component;
      throw new Error(`no core for ${String(_exhaustive)}`);
    }
  }
}

/** The control plane's cores, one of each, sharing `settings` (one id maker for all, when given). */
export const controlPlaneCores = (settings: CoreSettings = {}): ComponentCore[] => CONTROL_PLANE_COMPONENTS.map((component) => componentCore(component, settings));
