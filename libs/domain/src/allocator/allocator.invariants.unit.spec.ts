import fc from 'fast-check';
import { TaskState, encode } from '@shoal/contracts';
import type { PortConfig, ServiceSpec } from '@shoal/contracts';
import { allocatorSpecification, ended, network, serviceCreated, serviceSpec, tasksOf } from '@shoal/testing';
import type { Specification } from '@shoal/testing';
import type { AllocatorCore } from './allocator-core';
import { replay } from '../projection';
import { stateHash } from '../state-hash';
import type { ClusterState } from '../state';

type Op =
  | { readonly kind: 'network'; readonly k: number; readonly small: boolean }
  | { readonly kind: 'removeNetwork'; readonly k: number }
  | { readonly kind: 'service'; readonly k: number; readonly nets: readonly number[]; readonly ports: readonly (number | null)[]; readonly dnsrr: boolean; readonly update: boolean }
  | { readonly kind: 'removeService'; readonly k: number }
  | { readonly kind: 'tasks'; readonly k: number; readonly count: number }
  | { readonly kind: 'end'; readonly i: number }
  | { readonly kind: 'remove'; readonly i: number }
  | { readonly kind: 'restart' }
  /** A new allocator takes over while the old one's last decision is still on its way to the log. */
  | { readonly kind: 'failover' };

const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
const op: fc.Arbitrary<Op> = fc.oneof(
  weighted(3, fc.record({ kind: fc.constant('network' as const), k: fc.nat(3), small: fc.boolean() })),
  weighted(1, fc.record({ kind: fc.constant('removeNetwork' as const), k: fc.nat(3) })),
  weighted(4, fc.record({
    kind: fc.constant('service' as const),
    k: fc.nat(4),
    nets: fc.array(fc.nat(3), { maxLength: 2 }),
    // null: a dynamic port; a number: 8080 + n asked for by name
    ports: fc.array(fc.option(fc.nat(2)), { maxLength: 2 }),
    dnsrr: fc.boolean(),
    update: fc.boolean(),
  })),
  weighted(1, fc.record({ kind: fc.constant('removeService' as const), k: fc.nat(4) })),
  weighted(5, fc.record({ kind: fc.constant('tasks' as const), k: fc.nat(4), count: fc.integer({ min: 1, max: 8 }) })),
  weighted(2, fc.record({ kind: fc.constant('end' as const), i: fc.nat(100) })),
  weighted(1, fc.record({ kind: fc.constant('remove' as const), i: fc.nat(100) })),
  weighted(2, fc.constant({ kind: 'restart' as const })),
  weighted(1, fc.constant({ kind: 'failover' as const })),
);

const specOf = (o: Extract<Op, { kind: 'service' }>): ServiceSpec => {
  const ports: PortConfig[] = o.ports.map((p, i) => ({
    protocol: 'tcp',
    targetPort: 80 + i,
    publishMode: 'ingress',
    ...(p === null ? {} : { publishedPort: 8080 + p }),
  }));
  const base = serviceSpec(`svc${o.k}`, undefined, { endpoint: { mode: o.dnsrr && ports.length === 0 ? 'dnsrr' : 'vip', ports } });
  return { ...base, task: { ...base.task, networks: [...new Set(o.nets)].map((n) => ({ target: `net${n}` })) } };
};

let taskIds = 0;
const apply = (w: Specification<AllocatorCore>, o: Op): void => {
  const pick = (i: number, accept: (state: TaskState) => boolean): string | undefined => {
    const ids = [...w.state.tasks.values()].filter((t) => accept(t.status.state)).map((t) => t.id);
    return ids.length === 0 ? undefined : ids[i % ids.length];
  };
  switch (o.kind) {
    case 'network':
      w.apply(network(`n${o.k}`, `net${o.k}`, o.small ? `172.16.${o.k * 16}.0/28` : undefined));
      return;
    case 'removeNetwork':
      w.happen('NetworkRemoved', { id: `n${o.k}` });
      return;
    case 'service':
      if (o.update && w.state.services.has(`s${o.k}`)) w.happen('ServiceUpdated', { id: `s${o.k}`, spec: specOf(o) });
      else w.apply(serviceCreated(`s${o.k}`, specOf(o)));
      return;
    case 'removeService':
      w.happen('ServiceRemoved', { id: `s${o.k}` });
      return;
    case 'tasks':
      if (w.state.services.has(`s${o.k}`)) w.apply(tasksOf(`s${o.k}`, ...Array.from({ length: o.count }, () => `t${++taskIds}`)));
      return;
    case 'end': {
      const id = pick(o.i, (s) => s === TaskState.PENDING);
      if (id) w.apply(ended(id, o.i % 2 ? TaskState.FAILED : TaskState.COMPLETE));
      return;
    }
    case 'remove': {
      const id = pick(o.i, (s) => s === TaskState.NEW || s > TaskState.RUNNING);
      if (id) w.happen('TasksRemoved', { tasks: [{ id, reason: 'reaped' }] });
      return;
    }
    case 'restart':
      w.restart();
      return;
    case 'failover': {
      const late = w.core.decide(w.state, new Date()).map((p) => w.propose(p));
      w.restart();
      w.takeOwnership(`allocator-${w.state.terms.get('allocator') ?? 0}-next`);
      w.settle();
      for (const event of late) w.append(event);
      return;
    }
    default: {
      const _exhaustive: never = o;
      return _exhaustive;
    }
  }
};

/** Every address held (live tasks' attachments, services' VIPs) and every ingress port held, each once. */
const expectNothingHandedOutTwice = (state: ClusterState): void => {
  const addresses = new Map<string, string>();
  const hold = (network: string, address: string, holder: string): void => {
    const key = `${network} ${address.split('/')[0]}`;
    const other = addresses.get(key);
    if (other !== undefined) throw new Error(`${address} on ${network} is held by ${other} and ${holder}`);
    addresses.set(key, holder);
    const gateway = state.networks.get(network)?.gateway;
    if (gateway !== undefined && address.startsWith(`${gateway}/`)) throw new Error(`${holder} holds the gateway ${gateway}`);
  };
  for (const task of state.tasks.values()) {
    if (task.status.state < TaskState.PENDING || task.status.state > TaskState.RUNNING) continue;
    for (const a of task.attachments ?? []) for (const address of a.addresses) hold(a.network, address, `task ${task.id}`);
  }
  const ports = new Map<string, string>();
  for (const service of state.services.values()) {
    for (const vip of service.endpoint?.virtualIps ?? []) hold(vip.network, vip.address, `service ${service.id}`);
    for (const p of service.endpoint?.ports ?? []) {
      if (p.publishMode !== 'ingress') continue;
      const key = `${p.protocol}/${p.publishedPort}`;
      const other = ports.get(key);
      if (other !== undefined) throw new Error(`port ${key} is published by ${other} and ${service.id}`);
      ports.set(key, service.id);
    }
  }
};

describe('allocator invariants', () => {
  it('no address and no published port is handed out twice, across restarts that replay the log and failovers', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 40 }), (ops) => {
        const w = allocatorSpecification();
        w.settle();
        for (const o of ops) {
          apply(w, o);
          w.settle();
          expectNothingHandedOutTwice(w.state);
          expect(w.core.ledger.conflicts).toBe(0);
        }
        // The log the allocator wrote, replayed from its bytes, is the state it acted on.
        const replayed = replay(w.log.map((event, offset) => ({ offset, value: encode(event) })));
        expect(stateHash(replayed.state)).toBe(stateHash(w.state));
        // A new allocator started from that replay goes on allocating without a clash.
        w.restart();
        const networks = [...w.state.networks.values()].filter((n) => !n.spec.ingress).map((n) => ({ target: n.spec.name }));
        w.apply(serviceCreated('late', { ...serviceSpec('late'), endpoint: { mode: 'vip', ports: [{ protocol: 'tcp', targetPort: 80, publishMode: 'ingress' }] }, task: { container: { image: 'x' }, networks } }));
        w.apply(tasksOf('late', 'late-1', 'late-2', 'late-3'));
        w.settle();
        expectNothingHandedOutTwice(w.state);
        expect(w.core.ledger.conflicts).toBe(0);
      }),
      { numRuns: 150 },
    );
  });

  it('every NEW task that can be allocated is, and one that cannot carries a reason or waits on a network', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 10, maxLength: 30 }), (ops) => {
        const w = allocatorSpecification();
        w.settle();
        for (const o of ops) {
          apply(w, o);
          w.settle();
        }
        for (const task of w.state.tasks.values()) {
          if (task.status.state !== TaskState.NEW || task.desiredState > TaskState.RUNNING || !w.state.services.has(task.serviceId)) continue;
          const stuck = task.status.err !== undefined;
          const waitsOnNetwork = (task.spec.networks ?? []).some((n) => {
            const network = [...w.state.networks.values()].find((x) => x.id === n.target || x.spec.name === n.target);
            return network !== undefined && network.subnet === undefined;
          });
          expect({ id: task.id, stuck: stuck || waitsOnNetwork }).toEqual({ id: task.id, stuck: true });
        }
      }),
      { numRuns: 100 },
    );
  });
});
