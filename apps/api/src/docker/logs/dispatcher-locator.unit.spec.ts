import type { ShoalEvent } from '@shoal/contracts';
import { applied, rejected } from '@shoal/domain';
import { EventBuilder } from '@shoal/testing';
import { DispatcherLocator } from './dispatcher-locator';
import { addressOfInstance } from '@shoal/protocol';

const b = new EventBuilder('c1');
const takeover = (component: 'dispatcher' | 'orchestrator', instance: string, term: number): ShoalEvent =>
  b.event('OwnershipTaken', { component, term }, { by: component, instance, term });

describe('the dispatcher locator', () => {
  it("reads an instance's address after its last '@'", () => {
    expect(addressOfInstance('d-1a2b@10.0.0.5:2377')).toBe('10.0.0.5:2377');
    expect(addressOfInstance('d@x@[::1]:2377')).toBe('[::1]:2377');
    expect(addressOfInstance('d-1a2b')).toBeUndefined();
    expect(addressOfInstance('d-1a2b@')).toBeUndefined();
    expect(addressOfInstance(undefined)).toBeUndefined();
  });

  it('asks at the join address until a dispatcher has taken over', () => {
    expect(new DispatcherLocator('127.0.0.1:2377').address()).toBe('127.0.0.1:2377');
  });

  it('follows the latest applied takeover of the dispatcher', () => {
    const locator = new DispatcherLocator('127.0.0.1:2377');
    const first = takeover('dispatcher', 'd-a@10.0.0.1:2377', 1);
    locator.observe(first, applied(first.type));
    expect(locator.address()).toBe('10.0.0.1:2377');
    const second = takeover('dispatcher', 'd-b@10.0.0.2:2377', 2);
    locator.observe(second, applied(second.type));
    expect(locator.address()).toBe('10.0.0.2:2377');
    expect(locator.current).toEqual({ instance: 'd-b@10.0.0.2:2377', term: 2, address: '10.0.0.2:2377' });
  });

  it('ignores refused takeovers and those of other components', () => {
    const locator = new DispatcherLocator('127.0.0.1:2377');
    const active = takeover('dispatcher', 'd-a@10.0.0.1:2377', 2);
    locator.observe(active, applied(active.type));
    const stale = takeover('dispatcher', 'd-old@10.0.0.9:2377', 1);
    locator.observe(stale, rejected(stale.type, 'superseded-term', 'term 1 of dispatcher is not newer than its current term 2'));
    const other = takeover('orchestrator', 'o-1@10.0.0.7:9000', 3);
    locator.observe(other, applied(other.type));
    const partial = takeover('dispatcher', 'd-c@10.0.0.3:2377', 3);
    locator.observe(partial, { status: 'partial', type: partial.type, reasons: ['x'], codes: ['invalid'] });
    expect(locator.address()).toBe('10.0.0.1:2377');
  });

  it('falls back to the join address when the active instance names no address', () => {
    const locator = new DispatcherLocator('127.0.0.1:2377');
    const withAddress = takeover('dispatcher', 'd-a@10.0.0.1:2377', 1);
    locator.observe(withAddress, applied(withAddress.type));
    const without = takeover('dispatcher', 'd-b', 2);
    locator.observe(without, applied(without.type));
    expect(locator.address()).toBe('127.0.0.1:2377');
  });
});
