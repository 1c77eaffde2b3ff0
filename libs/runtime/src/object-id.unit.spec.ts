import { newObjectId } from './object-id';

describe('object ids', () => {
  it('are 25 base-36 characters, all different', () => {
    const ids = Array.from({ length: 1_000 }, newObjectId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
