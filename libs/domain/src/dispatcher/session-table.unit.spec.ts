import { TaskState } from '@shoal/contracts';
import fc from 'fast-check';
import type { PendingStatus } from './session-table';
import { SessionTable } from './session-table';

const report = (id: string) => ({ id, state: TaskState.RUNNING, at: '2026-01-01T00:00:00.000Z' });

describe('the session table’s queued statuses', () => {
  it('are taken oldest first, at most so many at a time, across reports and takes in any order', () => {
    // A step reports `count` statuses of a node, or takes at most `count`.
    const step = fc.tuple(fc.boolean(), fc.nat(40), fc.nat(3));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const table = new SessionTable();
        let model: PendingStatus[] = [];
        let next = 0;
        for (const [isReport, count, node] of steps) {
          if (isReport) {
            const reports = Array.from({ length: count }, () => report(`t${next++}`));
            table.report(`n${node}`, reports);
            model.push(...reports.map((r) => ({ nodeId: `n${node}`, report: r })));
          } else {
            expect(table.takeStatuses(count)).toEqual(model.slice(0, count));
            model = model.slice(count);
          }
          expect(table.pendingStatuses).toBe(model.length);
        }
        expect(table.takeStatuses(Number.MAX_SAFE_INTEGER)).toEqual(model);
        expect(table.pendingStatuses).toBe(0);
      }),
    );
  });

  it('takes a batch from a long queue and leaves the rest in order', () => {
    const table = new SessionTable();
    for (let n = 0; n < 100; n++) table.report(`n${n}`, Array.from({ length: 1_000 }, (_, i) => report(`t${n}-${i}`)));
    const seen: string[] = [];
    while (table.pendingStatuses > 0) {
      const taken = table.takeStatuses(7_000);
      expect(taken.length).toBe(Math.min(7_000, 100_000 - seen.length));
      seen.push(...taken.map(({ nodeId, report: r }) => `${nodeId} ${r.id}`));
    }
    expect(seen).toHaveLength(100_000);
    expect(seen[0]).toBe('n0 t0-0');
    expect(seen[7_000]).toBe('n7 t7-0');
    expect(seen[99_999]).toBe('n99 t99-999');
  });

  it('forgets what is queued when cleared', () => {
    const table = new SessionTable();
    table.report('n1', [report('a'), report('b'), report('c')]);
    expect(table.takeStatuses(1).map((p) => p.report.id)).toEqual(['a']);
    table.clear('stopping');
    expect(table.pendingStatuses).toBe(0);
    table.report('n1', [report('d')]);
    expect(table.takeStatuses(5).map((p) => p.report.id)).toEqual(['d']);
  });
});
