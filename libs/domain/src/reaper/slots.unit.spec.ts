import { slotKey } from './slots';

describe('slot keys', () => {
  it('puts a replicated task in its service’s slot, a global one on its service’s node, and a task of neither nowhere', () => {
    expect(slotKey({ serviceId: 's1', slot: 3, nodeId: 'n1' })).toBe('s1/3');
    expect(slotKey({ serviceId: 's1', slot: 0 })).toBe('s1/0');
    expect(slotKey({ serviceId: 'g', nodeId: 'n1' })).toBe('g@n1');
    expect(slotKey({ serviceId: 'g' })).toBeUndefined();
  });
});
