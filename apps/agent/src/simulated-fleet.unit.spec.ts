import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import { eventually } from '@shoal/testing';
import { SimulatedFleet, labelsOfNode } from './simulated-fleet';
import { assignment, complete, update } from './testing/assignments';
import { FakeDispatcher } from './testing/fake-dispatcher';

/** How long the fleet gets to do each thing, and how often to look. */
const WITHIN = { timeoutMs: 60_000, everyMs: 20 };

describe('a simulated fleet', () => {
  let dispatcher: FakeDispatcher;
  beforeEach(async () => {
    dispatcher = await FakeDispatcher.start();
    dispatcher.heartbeatPeriodMs = 200;
  });
  afterEach(() => dispatcher.stop());

  it('deals label values out across nodes and gives fixed ones to all', () => {
    const labels = { zone: ['a', 'b', 'c'], tier: 'web' };
    expect([0, 1, 2, 3].map((index) => labelsOfNode(labels, index))).toEqual([
      { zone: 'a', tier: 'web' },
      { zone: 'b', tier: 'web' },
      { zone: 'c', tier: 'web' },
      { zone: 'a', tier: 'web' },
    ]);
  });

  it('joins every node as its own session with its own name, resources and labels, and runs their tasks', async () => {
    const fleet = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 6, cpus: 2, memoryBytes: 4 * 2 ** 30, labels: { zone: ['a', 'b', 'c'] }, hostnamePrefix: 'worker-' });
    for (let node = 1; node <= 6; node += 1) dispatcher.initialAssignments.set(`node-${node}`, complete(update(assignment(`task-${node}`, ['SIM_RUN_FOR=50ms']))));
    try {
      await fleet.start();
      expect(fleet.connected).toBe(6);
      expect(new Set(fleet.nodeIds).size).toBe(6);
      const described = dispatcher.sessionRequests.map((request) => [request.description.hostname, request.description.engineLabels.zone, request.description.nanoCpus, request.description.memoryBytes]);
      expect(described).toEqual(
        expect.arrayContaining([
          ['worker-1', 'a', 2e9, 4 * 2 ** 30],
          ['worker-2', 'b', 2e9, 4 * 2 ** 30],
          ['worker-6', 'c', 2e9, 4 * 2 ** 30],
        ]),
      );
      await eventually('six tasks complete', () => dispatcher.statuses.filter((status) => status.state === TaskState.COMPLETE).length === 6, WITHIN);
      dispatcher.breakSessions();
      await eventually('the fleet back', () => fleet.connected === 6 && dispatcher.connectedNodes.length === 6, WITHIN);
    } finally {
      await fleet.stop();
    }
  });

  it("sends the statuses of nodes whose batches come due together in one call, each under its own node's session", async () => {
    const fleet = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 20 });
    for (let node = 1; node <= 20; node += 1) dispatcher.initialAssignments.set(`node-${node}`, complete(update(assignment(`task-${node}`))));
    try {
      await fleet.start();
      await eventually('twenty tasks running', () => dispatcher.statuses.filter((status) => status.state === TaskState.RUNNING).length === 20, WITHIN);
      expect(new Set(dispatcher.statusCalls.map((call) => call.nodeId)).size).toBe(20);
      for (const call of dispatcher.statusCalls) {
        expect(call.sessionId).toBe(dispatcher.sessionIdOf(call.nodeId));
        expect(call.updates.map((update) => update.taskId)).toEqual(call.updates.map(() => `task-${call.nodeId.slice('node-'.length)}`));
      }
      // Twenty nodes' batches, due within the same few ms, in far fewer calls than nodes.
      expect(dispatcher.multiStatusCalls.length).toBeLessThan(10);
      expect(Math.max(...dispatcher.multiStatusCalls)).toBeGreaterThan(1);
    } finally {
      await fleet.stop();
    }
  });

  it('refuses to start with a wrong join token, with the dispatcher’s reason', async () => {
    const fleet = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-nope', nodes: 3 });
    await expect(fleet.start()).rejects.toThrow(/refused the join token: invalid join token/);
    expect(fleet.connected).toBe(0);
  });

  it('with a state directory, a restarted fleet joins as the same nodes; one removed meanwhile joins anew', async () => {
    const stateDir = join(mkdtempSync(join(tmpdir(), 'shoal-fleet-')), 'fleet');
    const run = async (): Promise<(string | undefined)[]> => {
      const fleet = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 2, stateDir });
      await fleet.start();
      const ids = fleet.nodeIds;
      await fleet.stop();
      return ids;
    };
    expect(await run()).toEqual(['node-1', 'node-2']);
    expect(await run()).toEqual(['node-1', 'node-2']);
    expect(dispatcher.sessionRequests.slice(2).map((request) => request.nodeId)).toEqual(['node-1', 'node-2']);
    dispatcher.removedNodes.add('node-1');
    expect(await run()).toEqual(['node-3', 'node-2']);
    expect(await run()).toEqual(['node-3', 'node-2']);
  });

  it('with a state directory, keeps the dispatchers the sessions listed, and a restarted fleet finds one there when the one it was given is gone', async () => {
    const stateDir = join(mkdtempSync(join(tmpdir(), 'shoal-fleet-')), 'fleet');
    const standby = await FakeDispatcher.start();
    try {
      standby.heartbeatPeriodMs = 200;
      dispatcher.dispatchers = [dispatcher.address, standby.address];
      const first = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 3, stateDir });
      await first.start();
      const kept = join(stateDir, 'dispatchers');
      await eventually('the list kept', () => existsSync(kept) && readFileSync(kept, 'utf8') === `${dispatcher.address}\n${standby.address}\n`, WITHIN);
      await first.stop();
      await dispatcher.stop();
      const second = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 3, stateDir, backoff: { initialMs: 20, maxMs: 100 } });
      try {
        await second.start();
        expect(second.nodeIds).toEqual(['node-1', 'node-2', 'node-3']);
        expect(standby.sessionRequests.map((request) => request.nodeId).sort()).toEqual(['node-1', 'node-2', 'node-3']);
      } finally {
        await second.stop();
      }
    } finally {
      await standby.stop();
    }
  });

  it('holds 5,000 nodes in one process over a handful of channels', async () => {
    dispatcher.heartbeatPeriodMs = 5_000;
    const fleet = new SimulatedFleet({ dispatchers: [dispatcher.address], joinToken: 'SWMTKN-1-good', nodes: 5_000, joinWave: 1_000 });
    try {
      await fleet.start();
      expect(fleet.connected).toBe(5_000);
      expect(fleet.channelCount).toBe(10);
      expect(dispatcher.connectedNodes).toHaveLength(5_000);
      await eventually('a heartbeat from every node', () => dispatcher.heartbeatingNodes.size === 5_000, WITHIN);
      expect(fleet.connected).toBe(5_000);
    } finally {
      await fleet.stop();
    }
  });
});
