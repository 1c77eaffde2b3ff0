/**
 * Events for the benchmarks' in-process histories, built as a component would stamp them:
 * numbered from 1, a millisecond apart from 2026-01-01, by `<component>-bench` in term 0.
 */
import { EVENT_TYPES } from '@shoal/contracts';
import type { Component, EventDataMap, EventType, NodeDescription, ShoalEvent } from '@shoal/contracts';
import type { ComponentCore } from '@shoal/domain';
import { componentCore } from '../../libs/runtime/src/component-cores';

export type BenchEvent = <K extends EventType>(type: K, data: EventDataMap[K], component: Component) => ShoalEvent;

/** A fresh numbering of events on `cluster`: each call makes the next one. */
export const benchEvents = (cluster = 'bench'): BenchEvent => {
  let seq = 0;
  return (type, data, component) => {
    seq++;
    return {
      id: `e${seq}`,
      type,
      v: EVENT_TYPES[type].v,
      cluster,
      at: new Date(Date.parse('2026-01-01T00:00:00Z') + seq).toISOString(),
      by: { component, instance: `${component}-bench`, term: 0 },
      seq,
      data,
    } as unknown as ShoalEvent;
  };
};

/** What a benchmark's node `i` registers with: `node-<i>`, a linux/x86_64 host with these resources and engine. */
export const benchNode = (i: number, resources: NodeDescription['resources'], engine: NodeDescription['engine']): EventDataMap['NodeRegistered'] => ({
  id: `node-${i}`,
  role: 'worker',
  description: { hostname: `node-${i}`, platform: { os: 'linux', architecture: 'x86_64' }, resources, engine },
});

/**
 * The core whose view a memory measurement holds, by name: `state` is the replayed state
 * alone (no core); every other name is that component's core, with ids numbered from 1.
 */
export const viewCore = (name: string | undefined): ComponentCore | undefined => {
  let ids = 0;
  const newId = (): string => `id-${++ids}`;
  switch (name) {
    case 'state':
      return undefined;
    case 'allocator':
    case 'orchestrator':
    case 'scheduler':
    case 'reaper':
    case 'dispatcher':
      return componentCore(name, { newId });
    default:
      throw new Error(`unknown view ${name}`);
  }
};

/** The heap in use after three full collections (the process runs with --expose-gc). */
export const heapAfterGc = (): number => {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i++) collect();
  return process.memoryUsage().heapUsed;
};
