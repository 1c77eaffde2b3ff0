/**
 * Events for the benchmarks' in-process histories, built as a component would stamp them:
 * numbered from 1, a millisecond apart from 2026-01-01, by `<component>-bench` in term 0.
 */
import { EVENT_TYPES } from '@shoal/contracts';
import type { Component, EventDataMap, EventType, NodeDescription, ShoalEvent } from '@shoal/contracts';

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
