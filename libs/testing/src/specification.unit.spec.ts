import type { ClusterState, ComponentCore, Proposal } from '@shoal/domain';
import { TaskState } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { EventBuilder, serviceSpec } from './builders';
import { given, specification } from './specification';
import type { Given } from './specification';

/** A core that proposes to remove every service it has seen created, once. */
class Remover implements ComponentCore {
  readonly component = 'api' as const;
  readonly seen: string[] = [];
  reconciled = 0;
  private readonly todo = new Set<string>();
  observe(event: ShoalEvent): void {
    this.seen.push(event.type);
    if (event.type === 'ServiceCreated') this.todo.add(event.data.id);
  }
  reconcileAll(state: ClusterState): void {
    this.reconciled = state.services.size;
  }
  decide(): readonly Proposal[] {
    const proposals = [...this.todo].map((id): Proposal => ({ type: 'ServiceRemoved', data: { id } }));
    this.todo.clear();
    return proposals;
  }
}

describe('the specification', () => {
  const b = new EventBuilder();
  const created = (id: string) => b.event('ServiceCreated', { id, spec: serviceSpec(id) });
  /** The same, written by the spec's own builder: the core's records come from it too, so their seqs do not clash. */
  const service = (id: string): Given => (s) => s.event('ServiceCreated', { id, spec: serviceSpec(id) });

  it('given: every event must apply', () => {
    expect(() => given(created('s1'), b.event('ServiceRemoved', { id: 'nope' }))).toThrow(/given: ServiceRemoved \(e\d+\) was rejected/);
  });

  it('when an event: then the verdict it got, and the reason', () => {
    expect(() => given().when(b.event('ServiceRemoved', { id: 'nope' })).thenApplied()).toThrow(/expected ServiceRemoved to be applied, it was rejected/);
    expect(() => given().when(b.event('ServiceRemoved', { id: 'nope' })).thenRejected(/something else/)).toThrow(/expected a reason matching/);
    given().when(b.event('ServiceRemoved', { id: 'nope' })).thenRejected(/not found/);
  });

  it('when the core ticks: its proposals are appended as its writer and shown to it; then nothing more', () => {
    const spec = specification({ core: () => new Remover() }).given(service('s1'));
    const decision = spec.whenTicked();
    expect(decision.thenApplied().map((e) => [e.type, e.by.component])).toEqual([['ServiceRemoved', 'api']]);
    expect(spec.core.seen).toEqual(['ServiceCreated', 'ServiceRemoved']);
    expect(spec.state.services.size).toBe(0);
    spec.whenTicked().thenNothing();
    spec.apply(service('s2'));
    expect(() => spec.whenTicked().thenNothing()).toThrow(/proposed ServiceRemoved/);
  });

  it('restart replays the log into a new core, then reconciles', () => {
    const spec = specification({ core: () => new Remover() }).given(created('s1'), created('s2'));
    const first = spec.core;
    spec.restart();
    expect(spec.core).not.toBe(first);
    expect(spec.core.seen).toEqual(['ServiceCreated', 'ServiceCreated']);
    expect(spec.core.reconciled).toBe(2);
  });

  it('its own clock stamps the events and moves only when told', () => {
    const spec = specification({ clock: Date.parse('2026-01-01T00:00:00.000Z'), stampClock: true });
    spec.advance(1_500);
    expect(spec.event('ServiceCreated', { id: 's1', spec: serviceSpec() }).at).toBe('2026-01-01T00:00:01.500Z');
    expect(() => specification().advance(1)).toThrow(/no clock of its own/);
  });

  it('counts ids by name, and names the tasks last created', () => {
    const spec = specification();
    expect([spec.next('a'), spec.next('a'), spec.next('b')]).toEqual([1, 2, 1]);
    spec.given(created('s1'), (s) => s.event('TasksCreated', { tasks: [{ id: 't1', serviceId: 's1', slot: 1, specVersion: 1, desiredState: TaskState.RUNNING }] }));
    expect(spec.lastCreated).toEqual(['t1']);
  });
});
