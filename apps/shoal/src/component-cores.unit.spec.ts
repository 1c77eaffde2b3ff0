import { Test } from '@nestjs/testing';
import type { DynamicModule, Type } from '@nestjs/common';
import type { ComponentCore } from '@shoal/domain';
import { EVENT_LOG } from '@shoal/eventlog';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { COMPONENT_CORE, controlPlaneCores, newObjectId } from '@shoal/runtime';
import type { ControlPlaneComponent } from '@shoal/runtime';
import { openEmbeddedTestLog } from '@shoal/testing';
import { AllocatorModule } from '../../allocator/src/allocator.module';
import { OrchestratorModule } from '../../orchestrator/src/orchestrator.module';
import { ReaperModule } from '../../reaper/src/reaper.module';
import { SchedulerModule } from '../../scheduler/src/scheduler.module';

// The all-in-one process (shoal.runner.ts: controlPlaneCores) and each component's own
// process (its Nest module) run the same core for a component: the same class, the same
// settings, the same id maker — Docker's 25 base-36 characters.
const OWN_PROCESS: Record<ControlPlaneComponent, Type> = {
  allocator: AllocatorModule,
  orchestrator: OrchestratorModule,
  scheduler: SchedulerModule,
  reaper: ReaperModule,
};

/** The id maker a core holds, if it makes ids. */
const idMakerOf = (core: ComponentCore): (() => string) | undefined => (core as unknown as { readonly newId?: () => string }).newId;

describe('the cores of the all-in-one process and of each component\'s own process', () => {
  let log: EmbeddedEventLog;
  let closeLog: () => Promise<void>;
  beforeAll(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-cores-')));
  afterAll(() => closeLog());

  const ownProcessCore = async (module: Type | DynamicModule): Promise<ComponentCore> => {
    const app = await Test.createTestingModule({ imports: [module] }).overrideProvider(EVENT_LOG).useValue(log).compile();
    const core = app.get<ComponentCore>(COMPONENT_CORE, { strict: false });
    await app.close();
    return core;
  };

  it('are the control plane\'s four, one each', () => {
    expect(controlPlaneCores().map((core) => core.component).sort()).toEqual(Object.keys(OWN_PROCESS).sort());
  });

  it.each(controlPlaneCores().map((core) => [core.component, core] as const))('the %s is configured alike in both', async (component, allInOne) => {
    const own = await ownProcessCore(OWN_PROCESS[component as ControlPlaneComponent]);
    // Same class, same fields, the same functions (id maker, update supervisor) by reference.
    expect(own).toStrictEqual(allInOne);
    expect(idMakerOf(own)).toBe(idMakerOf(allInOne));
  });

  it('make ids as Docker makes swarm objects\'', () => {
    for (const core of controlPlaneCores()) {
      const newId = idMakerOf(core);
      if (newId === undefined) continue;
      expect(newId).toBe(newObjectId);
      expect(newId()).toMatch(/^[0-9a-z]{25}$/);
    }
  });
});
