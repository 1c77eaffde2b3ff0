/** The dispatcher's invariants over random histories. */
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import fc from 'fast-check';
import { EventBuilder, RecordingLink, histories, nodeDescription } from '@shoal/testing';
import { evolve } from '../evolve';
import { Projection } from '../projection';
import { AssignmentTracker } from './assignments';
import type { AssignmentChanges } from './assignments';
import { DispatcherCore } from './dispatcher-core';
import { SessionTable } from './session-table';

const { ASSIGNED } = TaskState;

describe('dispatcher invariants', () => {
  /** Random sessions, reports and clock moves after a random history. */
  const activity = fc.record({
    sessions: fc.array(fc.nat(4), { maxLength: 4 }),
    // A report names a task the history placed (by index), from its own node or another one.
    reports: fc.array(fc.tuple(fc.nat(40), fc.boolean(), fc.constantFrom(...Object.values(TaskState))), { maxLength: 20 }),
    advanceMs: fc.nat(48 * 3_600_000),
  });

  it('proposes only what evolve applies in full, and keeps each node’s task list as the state has it', () => {
    const proposed = new Map<string, number>();
    fc.assert(
      fc.property(histories(), activity, (log, { sessions, reports, advanceMs }) => {
        const table = new SessionTable();
        const core = new DispatcherCore(table);
        const projection = new Projection(undefined, 0, { onEvent: (event, verdict, state) => core.observe(event, verdict, state) });
        log.forEach((value, offset) => projection.apply({ offset, value }));
        const state = projection.state;
        core.reconcileAll(state);
        const start = Date.parse('2026-01-01T00:00:00.000Z');
        for (const n of sessions) {
          core.open(state, { nodeId: `n${n}`, sessionId: `s${n}`, role: 'worker', description: nodeDescription(`n${n}`) }, start);
        }
        const placed = [...state.tasks.values()].filter((task) => task.nodeId !== undefined);
        for (const [pick, fromOwnNode, reported] of reports) {
          const task = placed[pick % Math.max(1, placed.length)];
          const id = task?.id ?? `t${pick % 9}`;
          const nodeId = fromOwnNode && task?.nodeId !== undefined ? task.nodeId : `n${pick % 5}`;
          table.report(nodeId, [{ id, state: reported, at: new Date(start).toISOString() }]);
        }
        const b = new EventBuilder();
        const term = state.terms.get('dispatcher') ?? 0;
        for (const at of [start, start + advanceMs]) {
          for (const proposal of core.decide(state, new Date(at))) {
            const event = b.event(proposal.type, proposal.data as never, { by: 'dispatcher', instance: 'dispatcher-prop', term }) as ShoalEvent;
            const verdict = evolve(state, event);
            core.observe(event, verdict, state);
            expect(verdict).toMatchObject({ status: 'applied' });
            proposed.set(event.type, (proposed.get(event.type) ?? 0) + 1);
          }
        }
        const byScan = new Map<string, string[]>();
        for (const task of state.tasks.values()) {
          if (task.nodeId !== undefined && task.status.state >= ASSIGNED) byScan.set(task.nodeId, [...(byScan.get(task.nodeId) ?? []), task.id]);
        }
        for (const node of new Set([...byScan.keys(), ...state.nodes.keys()])) {
          expect([...core.tasksOf(node)].sort()).toEqual((byScan.get(node) ?? []).sort());
        }
      }),
      { numRuns: 150 },
    );
    // The histories reach every kind of proposal, so the property is about something.
    expect([...proposed.keys()].sort()).toEqual(['NodeRegistered', 'NodeStatusChanged', 'TaskStatusesReported']);
  });

  it('names every task whose assignment changed: changes of the named tasks alone are what a scan of all the node’s tasks finds, configs too', () => {
    const summary = (changes: AssignmentChanges): string[] => [
      ...changes.tasks.map((c) => (c.action === 'remove' ? `remove ${c.taskId}` : `update ${c.assignment.taskId} → ${c.assignment.desiredState}`)).sort(),
      ...changes.configs.map((c) => (c.action === 'remove' ? `remove config ${c.configId}` : `update config ${c.config.id}`)).sort(),
    ];
    let changed = 0;
    let configsSent = 0;
    fc.assert(
      fc.property(histories(), (log) => {
        const table = new SessionTable();
        const core = new DispatcherCore(table);
        const nodes = ['n0', 'n1', 'n2', 'n3'].map((nodeId) => {
          const link = new RecordingLink();
          table.open({ nodeId, sessionId: `s-${nodeId}`, role: 'worker', description: nodeDescription(nodeId), link }, 0, 5_000).registration = 'open';
          return { nodeId, link, scanned: new AssignmentTracker(), named: new AssignmentTracker(), seen: 0 };
        });
        const projection = new Projection(undefined, 0, {
          onEvent: (event, verdict, state) => {
            core.observe(event, verdict, state);
            for (const node of nodes) {
              const touched = node.link.touched.slice(node.seen);
              node.seen = node.link.touched.length;
              const byScan = node.scanned.changes(state, core.tasksOf(node.nodeId));
              expect(summary(node.named.changesOf(state, core.tasksOf(node.nodeId), touched))).toEqual(summary(byScan));
              changed += byScan.tasks.length;
              // A node keeps a config only while a task it holds uses it; a new set sends those the view has.
              const used = new Set([...core.tasksOf(node.nodeId)].flatMap((id) => state.tasks.get(id)?.spec.container.configs?.map((ref) => ref.configId) ?? []));
              for (const id of node.named.configsSent()) expect(used.has(id)).toBe(true);
              const set = new AssignmentTracker().complete(state, core.tasksOf(node.nodeId));
              expect(set.configs.map((config) => config.id).sort()).toEqual([...used].filter((id) => state.configs.has(id)).sort());
              configsSent += node.named.configsSent().size;
            }
          },
        });
        log.forEach((value, offset) => projection.apply({ offset, value }));
      }),
      { numRuns: 150 },
    );
    expect(changed).toBeGreaterThan(0);
    // The histories give tasks configs, so the property is about them too.
    expect(configsSent).toBeGreaterThan(0);
  });
});

