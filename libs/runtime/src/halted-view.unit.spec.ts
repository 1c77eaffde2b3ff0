/**
 * A record a newer build wrote (a known type at a version this build does not read) stops a
 * reader where it is, loudly, instead of being skipped as poison: skipping it would leave
 * this process's state apart from the state of processes that read it.
 */
import { encode } from '@shoal/contracts';
import type { ShoalEvent } from '@shoal/contracts';
import { Projection, ReaperCore, replay } from '@shoal/domain';
import type { EmbeddedEventLog } from '@shoal/eventlog';
import { EventBuilder, clusterInit, eventually, nodeDescription, openEmbeddedTestLog } from '@shoal/testing';
import { replayLog, verifyLog } from './audit';
import { ComponentHealthController } from './component-health';
import type { ComponentHealth } from './component-health';
import { ComponentRunner } from './component-runner';
import { ProcessMetrics } from './process-metrics';
import { LiveView } from './live-view';

const b = new EventBuilder();
const node = (id: string): ShoalEvent => b.event('NodeRegistered', { id, role: 'worker', description: nodeDescription(id) });
/** NodeRemoved at a version no build has written yet. */
const future = (id: string): string => JSON.stringify({ ...node(id), type: 'NodeRemoved', v: 99, data: { id } });
const history = (): string[] => [encode(clusterInit(b)), encode(node('n1')), future('n1'), encode(node('n2'))];

describe('a record of a version this build does not read', () => {
  it('stops a projection on it: nothing from there on applies, and the position stays on it', () => {
    const values = history();
    const projection = new Projection();
    projection.applyAll(values.map((value, offset) => ({ offset, value })));
    expect(projection.halted).toEqual({ offset: 2, reason: 'unknown version 99 of NodeRemoved (this build knows up to 1)' });
    expect(projection.position).toBe(2);
    expect([...projection.state.nodes.keys()]).toEqual(['n1']);
    expect(projection.tally).toEqual({ applied: 2, partial: 0, rejected: 0, poison: 0, upcast: 0 });
    expect(projection.apply({ offset: 3, value: values[3]! })).toBeUndefined();
    // The state is the log's state up to that record, the same every time.
    expect(projection.hash()).toBe(replay(values.slice(0, 2).map((value, offset) => ({ offset, value }))).hash());
  });

  it('is not poison: an unknown type still is, counted and skipped', () => {
    const values = [encode(clusterInit(b)), JSON.stringify({ ...node('n1'), type: 'NodeExploded' }), encode(node('n2'))];
    const projection = replay(values.map((value, offset) => ({ offset, value })));
    expect(projection.halted).toBeUndefined();
    expect(projection.tally.poison).toBe(1);
    expect(projection.position).toBe(3);
  });

  describe('on a log', () => {
    let log: EmbeddedEventLog;
    let closeLog: () => Promise<void>;
    beforeEach(async () => ({ log, close: closeLog } = await openEmbeddedTestLog('shoal-halted-')));
    afterEach(() => closeLog());

    it('stops a live view, which says so once and fails whoever waits on a verdict past it', async () => {
      await log.append(history().map((value) => ({ key: 'c1', value })));
      const said: string[] = [];
      const view = new LiveView(log, { onHalted: (message) => said.push(message) });
      await view.start();
      try {
        expect(view.halted?.offset).toBe(2);
        expect(view.position).toBe(2);
        await expect(view.verdictAt(3)).rejects.toThrow(/offset 2 holds a record this build cannot read \(unknown version 99 of NodeRemoved/);
        await log.append([{ key: 'c1', value: encode(node('n3')) }]);
        await new Promise((resolve) => setTimeout(resolve, 50));
        expect(view.state.nodes.has('n3')).toBe(false);
        expect(said).toHaveLength(1);
        expect(said[0]).toMatch(/^the log at offset 2 holds a record this build cannot read .*: this process applies nothing from there on/);
      } finally {
        await view.stop();
      }
    });

    it('makes a component unready, with the reason, and its core decides nothing', async () => {
      await log.append(history().map((value) => ({ key: 'c1', value })));
      const errors: string[] = [];
      const core = new ReaperCore();
      const decide = jest.spyOn(core, 'decide');
      const runner = new ComponentRunner(log, core, { cluster: 'c1', instance: 'reaper-a', onActivity: (a) => a.kind === 'error' && errors.push(a.message) });
      const health = new ComponentHealthController([runner], log, new ProcessMetrics());
      await runner.start();
      try {
        await eventually('the view has stopped', () => runner.view.halted !== undefined, { timeoutMs: 10_000, everyMs: 10 });
        await expect(health.ready()).rejects.toThrow();
        expect((health.live() as ComponentHealth).halted).toMatch(/offset 2 holds a record this build cannot read/);
        expect(errors.some((message) => message.includes('offset 2 holds a record this build cannot read'))).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 100));
        expect(decide).not.toHaveBeenCalled();
      } finally {
        await runner.stop();
      }
    });

    it('stops the audit there and says so: verify names the offset', async () => {
      await log.append(history().map((value) => ({ key: 'c1', value })));
      const projection = await replayLog(log);
      expect(projection.position).toBe(2);
      const report = await verifyLog(log);
      expect(report.halted).toEqual({ offset: 2, reason: 'unknown version 99 of NodeRemoved (this build knows up to 1)' });
      expect(report.agree).toBe(true);
    });
  });
});
