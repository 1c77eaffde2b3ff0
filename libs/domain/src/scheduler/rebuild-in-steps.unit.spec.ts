import { TaskState } from '@shoal/contracts';
import { node, nodes, pending, reported, service, specification, stepper, whenScheduled } from '@shoal/testing';
import type { ClusterState } from '../state';
import { SchedulerCore } from './scheduler-core';

const scheduler = () => specification({ core: () => new SchedulerCore() });

/** What a core's view holds: each node's counts and free resources, and the queue. */
const viewOf = (core: SchedulerCore) => ({
  nodes: [...core.view.nodes.values()].map((n) => [n.id, n.activeTasks, n.tasksOf('web'), n.tasksOf('db'), n.nanoCpus]).sort(),
  queue: [...core.view.queue].map((t) => t.id).sort(),
  tasks: [...core.view.tasks.keys()].sort(),
});

const learntAtOnce = (state: ClusterState): SchedulerCore => {
  const core = new SchedulerCore();
  core.reconcileAll(state);
  return core;
};

describe('the scheduler learning the state in steps (reconcileInSteps)', () => {
  it('ends as a core that learnt it at once, though records arrived between its steps', () => {
    const c = scheduler().given(nodes('n', 40, { cpus: 64 }), service('web', { resources: { reservations: { nanoCpus: 1e8 } } }), service('db'));
    c.given(pending('web', 600));
    whenScheduled(c);
    const running = c.lastCreated.slice(0, 50);
    c.given(pending('web', 300), pending('db', 200));

    const steps = stepper(c.core.reconcileInSteps(c.state));
    steps.step(1);
    // Between steps: a node joins, tasks are reported RUNNING or FAILED, more are created.
    c.given(node('m1', { cpus: 64 }));
    for (const id of running.slice(0, 5)) c.given(reported(c.state.tasks.get(id)?.nodeId as string, id, TaskState.FAILED));
    steps.step(1);
    c.given(pending('db', 100));
    steps.step(Number.POSITIVE_INFINITY);
    expect(steps.taken).toBeGreaterThanOrEqual(2);

    const atOnce = learntAtOnce(c.state);
    expect(viewOf(c.core)).toEqual(viewOf(atOnce));
    // The same placements, task by task: the queue holds the tasks in the state's order either way.
    const now = new Date('2026-01-02T00:00:00Z');
    const placements = (core: SchedulerCore) =>
      core.decide(c.state, now).flatMap((proposal) => {
        if (proposal.type !== 'TasksAssigned') throw new Error(`unexpected ${proposal.type}`);
        return proposal.data.tasks.map((item) => `${item.id}@${item.nodeId}`);
      });
    const stepped = placements(c.core);
    expect(stepped).toHaveLength(600);
    expect(stepped).toEqual(placements(atOnce));
  });

  it('is rebuild, a step at a time: rebuild gives the same view', () => {
    const c = scheduler().given(nodes('n', 3), service('web'));
    c.given(pending('web', 5));
    whenScheduled(c);
    c.given(pending('web', 2));
    const rebuilt = new SchedulerCore();
    rebuilt.view.rebuild(c.state);
    const stepped = new SchedulerCore();
    for (const _ of stepped.reconcileInSteps(c.state)) continue;
    expect(viewOf(stepped)).toEqual(viewOf(rebuilt));
    expect(viewOf(stepped).queue).toHaveLength(2);
  });
});
