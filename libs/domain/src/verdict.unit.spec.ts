import { batchVerdict, itemApplied, refuse, rejected } from './verdict';

describe('verdicts', () => {
  it('a batch keeps each refused item with its code and reason, in order', () => {
    const verdict = batchVerdict('TasksCreated', 3, [
      refuse('not-found', 'task t1 not found', 't1'),
      refuse('stale-version', 'task t2: stale spec version 1 (service is at 2)', 't2'),
    ]);
    expect(verdict).toEqual({
      status: 'partial',
      type: 'TasksCreated',
      reasons: ['task t1 not found', 'task t2: stale spec version 1 (service is at 2)'],
      codes: ['not-found', 'stale-version'],
      refused: ['t1', 't2'],
    });
    expect(batchVerdict('TasksCreated', 2, [refuse('not-found', 'task t1 not found', 't1'), refuse('not-found', 'task t2 not found', 't2')]).status).toBe('rejected');
    expect(batchVerdict('TasksCreated', 2, [])).toEqual({ status: 'applied', type: 'TasksCreated', reasons: [], codes: [] });
  });

  describe('itemApplied', () => {
    const partial = batchVerdict('TasksCreated', 3, [
      refuse('not-found', 'task t1 not found', 't1'),
      refuse('stale-version', 'task t2: stale spec version 1 (service is at 2)', 't2'),
    ]);
    it('knows the refused items of a batch by their whole id', () => {
      expect(itemApplied(partial, 't1')).toBe(false);
      expect(itemApplied(partial, 't2')).toBe(false);
      expect(itemApplied(partial, 't10')).toBe(true);
      expect(itemApplied(rejected('TasksCreated', 'invalid', 'x'), 't10')).toBe(false);
    });
  });
});
