import { nestsDeeperThan } from './json-depth';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { a: value };
  return value;
};

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, not scalars', () => {
    expect(nestsDeeperThan('text', 0)).toBe(false);
    expect(nestsDeeperThan(null, 0)).toBe(false);
    expect(nestsDeeperThan({}, 0)).toBe(true);
    expect(nestsDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestsDeeperThan({ a: [1, { b: {} }] }, 3)).toBe(true);
  });

  it('finds the deepest branch wherever it is', () => {
    expect(nestsDeeperThan({ shallow: 1, list: [1, 2, nested(9)] }, 10)).toBe(true);
    expect(nestsDeeperThan({ shallow: 1, list: [1, 2, nested(8)] }, 10)).toBe(false);
  });

  it('walks any depth without overflowing', () => {
    expect(nestsDeeperThan(nested(1_000_000), 100)).toBe(true);
  });
});
