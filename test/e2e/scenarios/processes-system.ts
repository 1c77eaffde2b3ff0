/**
 * The whole system under test: the API, allocator, orchestrator, scheduler, reaper and
 * dispatcher each `shoal run <component>` on the broker jest's global setup started, and an
 * agent process per simulated node. The test reads the log through a view of its own on
 * the same topic; a step waits (`eventually`) for what the real components do.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '@shoal/domain';
import { KafkaEventLog } from '@shoal/eventlog';
import { LiveView } from '@shoal/runtime';
import { dockerCli, eventually, testBrokers } from '@shoal/testing';
import { TOKENS_FILE } from '../../../apps/api/src/access/tokens';
import { ShoalCluster } from '../../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../../libs/testing/src/processes/spawn-shoal';
import { AUDITOR, NODE_1, SPARE, serviceNamed } from './system-under-test';
import type { RunningSystem } from './system-under-test';

/** How long a step waits for the real components. */
const CONVERGE_MS = 60_000;
/** How long a process may take to start, on a machine shared with other runs (ShoalCluster's bound too). */
const START_MS = 90_000;

const tasksOf = (state: ClusterState, serviceId: string): Task[] => [...state.tasks.values()].filter((task) => task.serviceId === serviceId);

/** Every component its own process on the test broker, and an agent per node. */
export const startProcesses = async (): Promise<RunningSystem> => {
  const deployment = ShoalProcesses.onKafka('docker-scenarios', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0' });
  const closing: (() => Promise<void>)[] = [() => deployment.close()];
  try {
    writeFileSync(join(deployment.dataDir, TOKENS_FILE), JSON.stringify([{ token: AUDITOR, role: 'auditor' }]));
    const cluster = await ShoalCluster.start(deployment);
    const port = Number((await cluster.api.waitFor(/api: listening on http:\/\/127\.0\.0\.1:(\d+)/))[1]);
    const adminToken = readFileSync(join(deployment.dataDir, 'admin.token'), 'utf8').trim();
    const clusterId = (await cluster.request<{ ID: string }>('GET', '/swarm')).body.ID;

    // The log as the test reads it: a view of its own, following the same topic.
    const log = await KafkaEventLog.open({ brokers: testBrokers(), topic: `${deployment.topicPrefix!}.events`, clientId: 'shoal-docker-scenarios' });
    const view = new LiveView(log);
    await view.start();
    closing.unshift(async () => {
      await view.stop();
      await log.close();
    });
    const state = async (): Promise<ClusterState> => {
      await view.waitFor(await log.highWaterMark());
      return view.state;
    };

    const agents = new Map<string, ShoalProcess>();
    const nodeNamed = (s: ClusterState, hostname: string) => [...s.nodes.values()].find((n) => n.description.hostname === hostname);
    /** One agent of one simulated node, named `<prefix>1`; resolves once the node is ready. */
    const addNode = async (hostname: string): Promise<void> => {
      const prefix = hostname.replace(/1$/, '');
      if (`${prefix}1` !== hostname) throw new Error(`a simulated node's hostname ends in 1 (its agent's first node): ${hostname}`);
      const agent = await cluster.agent(prefix, { nodes: 1 });
      agents.set(hostname, agent);
      await eventually(`${hostname} is ready`, async () => nodeNamed(await state(), hostname)?.status.state === 'ready', {
        timeoutMs: START_MS,
        explain: () => ({ node: nodeNamed(view.state, hostname) ?? null, agent: agent.output.slice(-2_000) }),
      });
    };
    await Promise.all([addNode(NODE_1), addNode(SPARE)]);

    const nodeId = (hostname: string): string => {
      const found = nodeNamed(view.state, hostname);
      if (!found) throw new Error(`no node ${hostname}`);
      return found.id;
    };
    const serviceTasks = async (name: string): Promise<Task[]> => {
      const s = await state();
      return tasksOf(s, serviceNamed(s, name).id);
    };
    return {
      kind: 'processes',
      dataDir: deployment.dataDir,
      cluster: clusterId,
      adminToken,
      docker: (args, { token } = {}) => dockerCli(deployment.dataDir, args, { timeoutMs: CONVERGE_MS, ...(token ? { tcp: { port, token } } : {}) }),
      state,
      nodeId,
      // Where the tasks go is the scheduler's choice: the scenario's constraints make it the node the other kind names.
      async tasksRun(name, { replicas, running }) {
        return eventually(`${running} of ${replicas} tasks of ${name} run, the rest pending`, async () => {
          const tasks = (await serviceTasks(name)).filter((t) => t.desiredState === TaskState.RUNNING);
          const up = tasks.filter((t) => t.status.state === TaskState.RUNNING);
          const waiting = tasks.filter((t) => t.status.state === TaskState.PENDING);
          return tasks.length === replicas && up.length === running && waiting.length === replicas - running
            ? { running: up.map((t) => t.id), pending: waiting.map((t) => t.id) }
            : undefined;
        }, { timeoutMs: CONVERGE_MS, everyMs: 200 });
      },
      async tasksComplete(name, { replicas }) {
        await eventually(`${replicas} tasks of ${name} complete`, async () => {
          const tasks = await serviceTasks(name);
          return tasks.length === replicas && tasks.every((t) => t.status.state === TaskState.COMPLETE);
        }, { timeoutMs: CONVERGE_MS, everyMs: 200 });
      },
      addNode,
      async nodeDown(hostname) {
        await agents.get(hostname)?.crash();
        await eventually(`${hostname} is down`, async () => nodeNamed(await state(), hostname)?.status.state === 'down', CONVERGE_MS);
      },
      async forgetNode(hostname) {
        await agents.get(hostname)?.crash();
        agents.delete(hostname);
      },
      async close() {
        for (const close of closing) await close();
      },
    };
  } catch (error) {
    for (const close of closing) await close().catch(() => undefined);
    throw error;
  }
};
