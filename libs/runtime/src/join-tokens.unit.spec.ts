import { JOIN_TOKEN, joinToken, newJoinTokens } from './join-tokens';

describe('join tokens', () => {
  it('have SwarmKit’s shape', () => {
    expect(joinToken('c1')).toMatch(JOIN_TOKEN);
  });

  it('share the cluster part and differ in the secret', () => {
    const { worker, manager } = newJoinTokens('c1');
    expect(worker.slice(0, 60)).toBe(manager.slice(0, 60));
    expect(worker).not.toBe(manager);
    expect(joinToken('c2').slice(0, 60)).not.toBe(worker.slice(0, 60));
  });
});
