import { decode } from './codec';
import { TaskState } from './task-state';

/** A TaskStatusesReported record of one status, as the dispatcher writes it. */
const record = (status: Record<string, unknown>): string =>
  JSON.stringify({
    id: 'e1',
    type: 'TaskStatusesReported',
    v: 2,
    cluster: 'c1',
    at: '2026-01-01T00:00:00.000Z',
    by: { component: 'dispatcher', instance: 'd-1', term: 0 },
    seq: 1,
    data: { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: '2026-01-01T00:00:00.000Z', ...status }] },
  });

const CONTAINER_ID = '4f1c6a2b9e0d'.padEnd(64, '7');

describe("TaskStatusesReported: a status's container", () => {
  it('reads a status with its container id (64 hex digits) and PID, and one with neither', () => {
    for (const status of [{ containerId: CONTAINER_ID, pid: 4242 }, { containerId: CONTAINER_ID, pid: 0, exitCode: 3 }, {}]) {
      const decoded = decode(record(status));
      expect({ status, ok: decoded.ok }).toEqual({ status, ok: true });
      expect(decoded.ok && decoded.event.type === 'TaskStatusesReported' && decoded.event.data.statuses[0]).toMatchObject(status);
    }
  });

  it.each([
    ['a short container id', { containerId: 'abc123', pid: 1 }, /statuses\[0\]\.containerId: expected 64 hex digits/],
    ['a container id in capitals', { containerId: CONTAINER_ID.toUpperCase(), pid: 1 }, /containerId: expected 64 hex digits/],
    ['a container id that is not a string', { containerId: 7, pid: 1 }, /containerId: expected 64 hex digits/],
    ['a negative PID', { containerId: CONTAINER_ID, pid: -1 }, /statuses\[0\]\.pid/],
    ['a fractional PID', { containerId: CONTAINER_ID, pid: 1.5 }, /statuses\[0\]\.pid/],
    ['a PID as text', { containerId: CONTAINER_ID, pid: '12' }, /statuses\[0\]\.pid/],
  ])('makes a record with %s poison', (_what, status, reason) => {
    const decoded = decode(record(status));
    expect(decoded.ok).toBe(false);
    expect(!decoded.ok && decoded.reason).toMatch(reason);
  });
});
