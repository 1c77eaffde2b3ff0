import { TaskState } from '@shoal/contracts';
import { clusterInit, ended, ingressPort, network, published, serviceCreated, specification, stepper, tasksOf, withNetworks } from '@shoal/testing';
import type { ComponentCore, Proposal } from '../component-core';
import { formatIpv4 } from '../net';
import type { ClusterState } from '../state';
import { AllocatorCore } from './allocator-core';
import { DYNAMIC_PORT_END, DYNAMIC_PORT_START } from './port-space';

const ids = (prefix: string, from: number, to: number): string[] => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}${from + i}`);

/**
 * The log written by another allocator (`builder`, which allocates while it hears the log)
 * and told to `learner` once it starts learning, as a runner's core restored from a snapshot
 * is: the records that arrive while it learns are the other's last ones, or new tasks.
 */
const cluster = () => {
  let ingress = 0;
  const builder = new AllocatorCore({ newId: () => `ingress-${++ingress}` });
  const learner = new AllocatorCore({ newId: () => 'learner-ingress' });
  const hearing = { builder: true, learner: false };
  const both: ComponentCore = {
    component: 'allocator',
    observe: (event, verdict, state) => {
      if (hearing.builder) builder.observe(event, verdict, state);
      if (hearing.learner) learner.observe(event, verdict, state);
    },
    reconcileAll: (state) => builder.reconcileAll(state),
    decide: (state, now) => builder.decide(state, now),
  };
  const w = specification({ core: () => both });
  w.happen('ClusterInitialized', clusterInit(w.b).data);
  w.reconcileAll();
  w.settle();
  // s1 on `backend` with a virtual IP; s2 publishing port 80 on the routing mesh (ingress network, a port, a virtual IP).
  w.apply(network('n1', 'backend', '10.64.0.0/16'));
  w.apply(serviceCreated('s1', withNetworks('web', ['backend'])), serviceCreated('s2', published('api', [ingressPort(80)])));
  w.apply(tasksOf('s1', ...ids('a', 1, 1_200)), tasksOf('s2', ...ids('b', 1, 200)));
  w.settle();
  // Tasks the builder never allocates: NEW when learning starts.
  hearing.builder = false;
  w.apply(tasksOf('s1', ...ids('c', 1, 300)));
  return { w, builder, learner, hearing };
};

/** Who holds each address of each pool, and each port of the routing mesh. */
const ledgerOf = (core: AllocatorCore) => ({
  conflicts: core.ledger.conflicts,
  holders: core.ledger.holders,
  pools: [...core.ledger.pools.values()]
    .map((pool) => {
      const held: string[] = [];
      for (let a = pool.subnet.base; a < pool.subnet.base + 2 ** (32 - pool.subnet.prefix); a++) {
        const holder = pool.holderOf(a);
        if (holder !== undefined) held.push(`${formatIpv4(a)} ${holder}`);
      }
      return [pool.network, pool.available, held.sort()];
    })
    .sort(),
  ports: Array.from({ length: DYNAMIC_PORT_END - DYNAMIC_PORT_START + 1 }, (_, i) => core.ledger.ports.holderOf('tcp', DYNAMIC_PORT_START + i) ?? '').join(),
});

/**
 * What a decision proposes. The tasks a TasksAllocated lists, and the addresses they are
 * given, as two sorted lists: a task told of between steps is pending ahead of older ones
 * not reached yet, so which task takes which of the same addresses may differ.
 */
const proposed = (proposals: readonly Proposal[]) =>
  proposals.map((p) => {
    if (p.type !== 'TasksAllocated') return [p.type, p.data];
    return [p.type, p.data.tasks.map((t) => t.id).sort(), p.data.tasks.flatMap((t) => t.attachments.flatMap((a) => a.addresses.map((ip) => `${a.network} ${ip}`))).sort()];
  });

const learntAtOnce = (state: ClusterState): AllocatorCore => {
  const core = new AllocatorCore({ newId: () => 'learner-ingress' });
  core.reconcileAll(state);
  return core;
};

describe('the allocator learning the state in steps (reconcileInSteps)', () => {
  it('ends as a core that learnt it at once, though records arrived between its steps', () => {
    const { w, learner, hearing } = cluster();
    hearing.learner = true;
    const steps = stepper(learner.reconcileInSteps(w.state));
    steps.step(1);
    // While the ledger is rebuilt: the other allocator allocates new tasks (and a network), tasks end
    // and leave the store (reached and not yet), s2 publishes another port.
    hearing.builder = true;
    w.apply(tasksOf('s1', ...ids('d', 1, 50)));
    w.apply(network('n2', 'frontend', '10.65.0.0/24'));
    w.apply((s) => s.event('ServiceUpdated', { id: 's2', spec: published('api', [ingressPort(80), ingressPort(443)]) }));
    w.settle();
    hearing.builder = false;
    w.apply(ended('a5'), ended('a1150'), ended('b3'), ended('b190'));
    w.apply((s) => s.event('TasksRemoved', { tasks: ['a5', 'b190'].map((id) => ({ id, reason: 'spec' })) }));
    steps.step(1);
    // While the NEW tasks are looked for: new tasks no one allocates, on both networks; a NEW task told to stop; a task ended.
    w.apply(serviceCreated('s3', withNetworks('both', ['backend', 'frontend'])), tasksOf('s3', ...ids('e', 1, 20)));
    w.apply((s) => s.event('TaskDesiredStatesChanged', { tasks: [{ id: 'c7', desiredState: TaskState.SHUTDOWN }] }));
    w.apply(ended('a20'));
    steps.step(Number.POSITIVE_INFINITY);
    expect(steps.taken).toBe(2);

    const atOnce = learntAtOnce(w.state);
    expect(learner.watching).toEqual(atOnce.watching);
    expect(ledgerOf(learner)).toEqual(ledgerOf(atOnce));
    expect(ledgerOf(atOnce).conflicts).toBe(0);
    const now = new Date();
    const stepped = proposed(learner.decide(w.state, now));
    expect(stepped).toEqual(proposed(atOnce.decide(w.state, now)));
    expect(ledgerOf(learner)).toEqual(ledgerOf(atOnce));
    // It did something worth comparing: s3's virtual IPs, then the NEW tasks but c7, and s3's.
    expect(stepped.map(([type]) => type)).toEqual(['ServiceEndpointsAllocated', 'TasksAllocated']);
    expect(stepped[1]?.[1]).toHaveLength(299);
  });

  it('is reconcileAll, a step at a time: reconcileAll gives the same core', () => {
    const { w } = cluster();
    const stepped = new AllocatorCore({ newId: () => 'learner-ingress' });
    for (const _ of stepped.reconcileInSteps(w.state)) continue;
    const atOnce = learntAtOnce(w.state);
    expect(stepped.watching).toEqual(atOnce.watching);
    expect(stepped.watching.pending).toBe(300);
    expect(ledgerOf(stepped)).toEqual(ledgerOf(atOnce));
    expect(ledgerOf(stepped).holders).toEqual({ tasks: 1_400, services: 2 });
  });
});
