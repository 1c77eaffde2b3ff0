/**
 * The log level: raised one level at a time, only when every component's owner reads the
 * new level; once raised, an owner that does not read it cannot take over.
 */
import type { Component } from '@shoal/contracts';
import { EventBuilder, clusterInit, given } from '@shoal/testing';

describe('evolve: the log level', () => {
  let b: EventBuilder;
  beforeEach(() => (b = new EventBuilder('c1')));
  const owner = (component: Component, term: number, reads?: number) =>
    b.event('OwnershipTaken', { component, term, ...(reads === undefined ? {} : { reads }) }, { by: component, term, instance: `${component}-${term}` });
  const raise = (level: number) => b.event('LogLevelRaised', { level });

  it('starts at 1, with nothing of it in the cluster object (so older logs hash as they did)', () => {
    const { state } = given(clusterInit(b), owner('scheduler', 1));
    expect(state.cluster?.logLevel).toBeUndefined();
    expect(state.cluster?.readers).toBeUndefined();
  });

  it('goes up when every component that took a term has an owner that reads the new level', () => {
    given(clusterInit(b), owner('scheduler', 1, 2), owner('allocator', 1, 2))
      .when(raise(2))
      .thenApplied((state) => {
        expect(state.cluster?.logLevel).toBe(2);
        expect(state.cluster?.readers).toEqual({ scheduler: 2, allocator: 2 });
      });
  });

  it('is refused, naming them, while some owner reads only a lower level', () => {
    given(clusterInit(b), owner('scheduler', 1, 2), owner('allocator', 1), owner('reaper', 1))
      .when(raise(2))
      .thenRejected(/^not every component's owner reads log level 2: allocator, reaper \(run a build that reads it, then raise the level\)$/);
  });

  it('goes up one level at a time', () => {
    given(clusterInit(b), owner('scheduler', 1, 3)).when(raise(3)).thenRejected(/^the log is at level 1: it goes up one level at a time, to 2$/);
    given(clusterInit(b)).when(raise(1)).thenRejected(/one level at a time, to 2/);
  });

  it('needs the cluster', () => {
    given().when(raise(2)).thenRejected(/not initialized/);
  });

  it('once raised, keeps an owner of an older build from taking over', () => {
    given(clusterInit(b), owner('scheduler', 1, 2), raise(2))
      .when(owner('scheduler', 2))
      .thenRejected(/^the scheduler's new owner reads log level 1 and the log is at level 2: run a build that reads level 2$/);
  });

  it('forgets an owner that reads no more than level 1', () => {
    given(clusterInit(b), owner('scheduler', 1, 2))
      .when(owner('scheduler', 2, 1))
      .thenApplied((state) => expect(state.cluster?.readers).toBeUndefined());
  });

  it('carries its codes: invalid for a wrong level, wrong-state while owners are behind', () => {
    given(clusterInit(b)).when(raise(3)).then((_, verdict) => expect(verdict.codes).toEqual(['invalid']));
    given(clusterInit(b), owner('allocator', 1)).when(raise(2)).then((_, verdict) => expect(verdict.codes).toEqual(['wrong-state']));
  });
});
