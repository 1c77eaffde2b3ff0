import { TaskState, encode } from '@shoal/contracts';
import { Projection, ReaperCore } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, eventually, newTask, nodeDescription, openEmbeddedTestLog, serviceSpec } from '@shoal/testing';
import { ComponentRunner } from './component-runner';
import { ProcessMetrics } from './process-metrics';

describe('ProcessMetrics', () => {
  it('counts verdicts by outcome and reason code, and times each task from its creation to its first RUNNING', async () => {
    const metrics = new ProcessMetrics();
    const projection = new Projection(undefined, 0, { onEvent: metrics.views.observer('orchestrator') });
    metrics.views.add('orchestrator', { view: () => ({ projection, startedAt: 0 }) });
    const b = new EventBuilder('c1');
    const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
    const history = [
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
      b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'x' }] }),
      // Created at 4 s, RUNNING at 7 s by the agent's clock.
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      // RUNNING again: refused, and no second observation.
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      b.event('NodeRemoved', { id: 'n9' }),
    ];
    history.forEach((event, offset) => projection.apply({ offset, value: encode(event) }));
    projection.apply({ offset: history.length, value: '{not json' });

    expect(await metrics.sample('shoal_verdicts_total', { view: 'orchestrator', outcome: 'applied', reason: 'none' })).toBe(7);
    expect(await metrics.sample('shoal_verdicts_total', { view: 'orchestrator', outcome: 'rejected', reason: 'wrong-state' })).toBe(1);
    expect(await metrics.sample('shoal_verdicts_total', { view: 'orchestrator', outcome: 'rejected', reason: 'not-found' })).toBe(1);
    expect(await metrics.sample('shoal_records_total', { view: 'orchestrator', verdict: 'poison' })).toBe(1);
    const lines = (await metrics.text()).split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        'shoal_task_time_to_running_seconds_bucket{le="2.5",view="orchestrator"} 0',
        'shoal_task_time_to_running_seconds_bucket{le="5",view="orchestrator"} 1',
        'shoal_task_time_to_running_seconds_sum{view="orchestrator"} 3',
        'shoal_task_time_to_running_seconds_count{view="orchestrator"} 1',
      ]),
    );
  });

  it('carries the parts of one process on one registry, each family once, each view by its name', async () => {
    const { log, close } = await openEmbeddedTestLog('shoal-metrics-');
    try {
      await log.append([{ key: 'c1', value: encode(clusterInit(new EventBuilder())) }]);
      const metrics = new ProcessMetrics();
      const runners = ['reaper-a', 'reaper-b'].map((instance) => new ComponentRunner(log as EmbeddedEventLog, new ReaperCore(), { cluster: 'c1', instance, metrics }));
      await runners[0]!.start();
      // A second view under a name the process already reports is refused, not counted twice.
      await expect(runners[1]!.start()).rejects.toThrow('a view named reaper is already reported in this process');
      await eventually('active', () => runners[0]!.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
      const text = await metrics.text();
      for (const family of ['shoal_records_total', 'shoal_view_lag_records', 'shoal_component_active', 'process_cpu_seconds_total']) {
        expect(text.split('\n').filter((line) => line === `# TYPE ${family} ${family.endsWith('_total') ? 'counter' : 'gauge'}`)).toHaveLength(1);
      }
      expect(await metrics.sample('shoal_component_active', { component: 'reaper' })).toBe(1);
      await runners[0]!.stop();
      expect(await metrics.sample('shoal_component_active', { component: 'reaper' })).toBeUndefined();
    } finally {
      await close();
    }
  });

  it('names the partition in a component\'s metrics when the process serves several, one series each', async () => {
    const metrics = new ProcessMetrics();
    // One process serving two clusters' partitions: active for one, standing by for the other.
    const unreport = [metrics.addComponent({ component: 'scheduler', state: 'active', partition: 0 }), metrics.addComponent({ component: 'scheduler', state: 'standby', partition: 1 })];
    expect(await metrics.sample('shoal_component_active', { component: 'scheduler', partition: '0' })).toBe(1);
    expect(await metrics.sample('shoal_component_active', { component: 'scheduler', partition: '1' })).toBe(0);
    const applied = { status: 'applied', reasons: [], codes: [] } as const;
    metrics.tick('scheduler', 0.02, ['TasksAssigned', 'TasksAssigned'], [applied, applied], 1);
    metrics.tick('scheduler', 0.5, ['TasksAssigned'], [applied], 0);
    const text = await metrics.text();
    expect(text).toContain('shoal_component_tick_duration_seconds_count{component="scheduler",partition="1"} 1');
    expect(text).toContain('shoal_component_tick_duration_seconds_bucket{le="0.025",component="scheduler",partition="1"} 1');
    expect(text).toContain('shoal_component_tick_duration_seconds_bucket{le="0.25",component="scheduler",partition="0"} 0');
    expect(text).toContain('shoal_component_batch_size_sum{component="scheduler",partition="1"} 2');
    expect(text).toContain('shoal_component_decisions_total{component="scheduler",partition="1",type="TasksAssigned",verdict="applied"} 2');
    metrics.decided('scheduler', 0.003, 1);
    const decided = await metrics.text();
    expect(decided).toContain('shoal_component_decide_duration_seconds_bucket{le="0.001",component="scheduler",partition="1"} 0');
    expect(decided).toContain('shoal_component_decide_duration_seconds_bucket{le="0.005",component="scheduler",partition="1"} 1');
    unreport.forEach((stop) => stop());

    // A process serving one partition writes the series without it, as it always did.
    const one = new ProcessMetrics();
    one.addComponent({ component: 'reaper', state: 'active' });
    one.tick('reaper', 0.02, ['TasksRemoved'], [applied]);
    expect(await one.text()).toContain('shoal_component_active{component="reaper"} 1');
    expect(await one.text()).toContain('shoal_component_tick_duration_seconds_count{component="reaper"} 1');
  });

  it('reports a runner under the partition it is given', async () => {
    const { log, close } = await openEmbeddedTestLog('shoal-metrics-partition-');
    try {
      await log.append([{ key: 'c1', value: encode(clusterInit(new EventBuilder())) }]);
      const metrics = new ProcessMetrics();
      const runner = new ComponentRunner(log as EmbeddedEventLog, new ReaperCore(), { cluster: 'c1', instance: 'reaper-a', metrics, viewName: 'reaper/3', partition: 3 });
      await runner.start();
      await eventually('active', () => runner.state === 'active', { timeoutMs: 10_000, everyMs: 10 });
      expect(await metrics.sample('shoal_component_active', { component: 'reaper', partition: '3' })).toBe(1);
      expect(await metrics.sample('shoal_component_active', { component: 'reaper' })).toBeUndefined();
      // Its core decided on becoming active, proposing nothing: the decision is timed all the same.
      const count = (text: string, family: string): number => Number(new RegExp(`^${family}_count\\{component="reaper",partition="3"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      await eventually('a decision timed', async () => count(await metrics.text(), 'shoal_component_decide_duration_seconds') >= 1, { timeoutMs: 10_000, everyMs: 10 });
      expect(count(await metrics.text(), 'shoal_component_tick_duration_seconds')).toBe(0);
      await runner.stop();
    } finally {
      await close();
    }
  });
});
