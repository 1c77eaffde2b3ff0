import { replay } from '@shoal/domain';
import { EventBuilder, clusterInit, nodeDescription, toRecords } from '@shoal/testing';
import { consoleHistory } from './console-history.fixture';
import { consoleDiff } from './console-diff';

const stateAt = (to: number) => replay(toRecords(consoleHistory()), { to }).state;

describe('consoleDiff', () => {
  it('names what was added between two points', () => {
    const diff = consoleDiff(stateAt(1), stateAt(5), { position: 1 }, { position: 5, at: '2026-01-01T00:00:05.000Z' });
    expect(diff.from).toEqual({ position: 1 });
    expect(diff.to).toEqual({ position: 5, at: '2026-01-01T00:00:05.000Z' });
    expect(diff.services).toEqual({ added: [{ id: 's1', name: 'web' }], removed: [], changed: [] });
    expect(diff.tasks).toEqual({ added: [{ id: 't1', name: 'web.1' }], removed: [], changed: [] });
    expect(diff.nodes.added.map((node) => node.name)).toEqual(['node-1', 'node-2']);
  });

  it('names each field that changed, from and to', () => {
    const diff = consoleDiff(stateAt(8), stateAt(14), { position: 8 }, { position: 14 });
    expect(diff.services.changed).toEqual([
      {
        id: 's1',
        name: 'web',
        changes: [
          { field: 'mode', from: 'replicated ×1', to: 'replicated ×2' },
          { field: 'version', from: '1', to: '2' },
          { field: 'update', from: '', to: 'updating' },
        ],
      },
    ]);
    expect(diff.tasks).toEqual({ added: [{ id: 't2', name: 'web.2' }], removed: [], changed: [] });
    expect(diff.nodes.changed).toEqual([{ id: 'n2', name: 'node-2', changes: [{ field: 'status', from: 'ready', to: 'down' }] }]);
  });

  it('follows a task through its states, and names what was removed', () => {
    const moved = consoleDiff(stateAt(6), stateAt(8), { position: 6 }, { position: 8 });
    expect(moved.tasks.changed).toEqual([
      {
        id: 't1',
        name: 'web.1',
        changes: [
          { field: 'state', from: 'PENDING', to: 'RUNNING' },
          { field: 'node', from: '', to: 'n1' },
        ],
      },
    ]);
    const b = new EventBuilder('c1');
    const events = [
      clusterInit(b),
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down' }] }),
      b.event('NodeRemoved', { id: 'n1' }),
    ];
    const removed = consoleDiff(replay(toRecords(events), { to: 3 }).state, replay(toRecords(events)).state, { position: 3 }, { position: 4 });
    expect(removed.nodes).toEqual({ added: [], removed: [{ id: 'n1', name: 'node-1' }], changed: [] });
  });

  it('finds nothing between a point and itself', () => {
    const diff = consoleDiff(stateAt(14), stateAt(14), { position: 14 }, { position: 14 });
    for (const kind of [diff.services, diff.tasks, diff.nodes]) expect(kind).toEqual({ added: [], removed: [], changed: [] });
  });
});
