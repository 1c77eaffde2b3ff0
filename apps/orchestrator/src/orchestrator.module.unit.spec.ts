import { newTaskId } from './orchestrator.module';

describe('the orchestrator shell', () => {
  it('makes task ids of 25 base-36 characters, all different', () => {
    const ids = Array.from({ length: 1_000 }, newTaskId);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{25}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
