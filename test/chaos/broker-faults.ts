/**
 * Broker faults on a three-node KRaft cluster under load: the chaos deployment (every
 * component as two processes, two APIs, agents of simulated nodes; chaos-cluster.ts) on a
 * LocalKafkaCluster, and for each fault a workload of creates, scales, updates and removes
 * running through it:
 * - leader:     SIGKILL of the node leading the events partition, down for the outage, restarted;
 * - controller: SIGKILL of the node leading the KRaft controller quorum, down for the outage, restarted;
 * - rolling:    each node in turn shut down (SIGTERM) and started again, once the partition has three in-sync replicas again;
 * - disk-full:  the events partition leader's data dir (a tmpfs of the run's own) filled up: the node
 *               must leave the in-sync replicas and the cluster go on; then the space is freed and the node restarted;
 * - partition:  the events partition leader cut off from the other two nodes (each node in a network namespace
 *               of the run's own, fault-network.ts; clients still reach it) for the outage, then healed.
 * After each: the workload stops, and the run checks that every acknowledged write is on the
 * log and nothing doubled or lost (log-checks.ts), that no record is on the log twice
 * (duplicates.ts), that every process holds one state hash at the log's end, the one a replay
 * reaches, that every service converged, and that the partition has three in-sync replicas
 * again; it reports the seconds from the fault to the deployment whole again and to convergence.
 * Needs root: the tmpfs mounts (disk-full), the namespaces and iptables (partition). `npm run chaos -- --cluster 3` (main.ts).
 */
import { spawnSync } from 'node:child_process';
import { Kafka, logLevel } from 'kafkajs';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FaultNetwork } from '../../libs/testing/src/broker/fault-network';
import { LocalKafkaCluster } from '../../libs/testing/src/broker/kafka-cluster';
import { KafkaEventLog, TopicRefusedError } from '@shoal/eventlog';
import { ChaosCluster, quietly } from './chaos-cluster';
import { agreement, statez } from './chaos-run';
import { unconverged } from './convergence';
import { duplicatedRecords } from './duplicates';
import { judgeLog } from './log-checks';
import type { Ack } from './log-checks';
import { Workload } from './workload';

export type BrokerFault = 'leader' | 'controller' | 'rolling' | 'disk-full' | 'partition';
export const BROKER_FAULTS: readonly BrokerFault[] = ['leader', 'controller', 'rolling', 'disk-full', 'partition'];

export interface BrokerFaultOptions {
  readonly faults?: readonly BrokerFault[];
  readonly seed?: number;
  readonly nodesPerAgent?: number;
  /** How long a killed node stays down (default 10 s). */
  readonly outageMs?: number;
  /** Workload before each fault and after the deployment is whole again (default 5 s). */
  readonly gapMs?: number;
  /** Every service converged within this long of the deployment being whole again after the fault (default 120 s). */
  readonly convergeWithinMs?: number;
  readonly say?: (line: string) => void;
  /** Where to write every process's output when a check fails. */
  readonly logs?: string;
}

export interface BrokerFaultOutcome {
  readonly fault: BrokerFault;
  /** Which node, and what was done to it. */
  readonly detail: string;
  readonly at: string;
  /** From the fault until every component had an active instance and every API was ready again. */
  readonly wholeSeconds: number;
  /** From the fault until every service had converged (the workload stopped after the deployment was whole and the gap). */
  readonly convergedSeconds?: number;
  /** The in-sync replicas of the events partition while the fault lasted (disk-full: after the node left them), and at the end. */
  readonly isrDuring?: readonly number[];
  readonly isrAfter: readonly number[];
  readonly acks: number;
  readonly records: number;
  readonly problems: readonly string[];
}

export interface BrokerFaultReport {
  readonly seed: number;
  /** What opening the log on a topic of 2 replicas with min.insync.replicas 1 answered, with the cluster's defaults (3 and 2). */
  readonly refusal: string;
  readonly faults: readonly BrokerFaultOutcome[];
  readonly problems: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const run = (command: string, args: readonly string[]): void => {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr || result.error?.message}`);
};

/** Polls `probe` until it answers, or `ms` pass. */
const until = async <T>(ms: number, probe: () => Promise<T | undefined>): Promise<T | undefined> => {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await quietly(probe);
    if (value !== undefined || Date.now() > deadline) return value;
    await sleep(250);
  }
};


/** Opens the log on a topic with fewer replicas than a cluster of three requires by default: it must be refused. */
const refusedOnCluster = async (brokers: readonly string[]): Promise<string> => {
  const topic = `shoal-faults-${Date.now()}.events`;
  const kafka = new Kafka({ brokers: [...brokers], logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ waitForLeaders: false, topics: [{ topic, numPartitions: 1, replicationFactor: 2, configEntries: [{ name: 'retention.ms', value: '-1' }, { name: 'min.insync.replicas', value: '1' }] }] });
    await until(30_000, async () => ((await admin.fetchTopicMetadata({ topics: [topic] })).topics[0]?.partitions[0]?.leader ?? -1) >= 0 || undefined);
    const opened = await KafkaEventLog.open({ brokers: [...brokers], topic, logLevel: logLevel.NOTHING }).then(
      async (log) => {
        await log.close();
        return 'opened';
      },
      (error: unknown) => (error instanceof TopicRefusedError ? `refused: ${error.refusals.map((r) => `${r.setting} ${r.found}`).join(', ')}` : `failed: ${String(error)}`),
    );
    await admin.deleteTopics({ topics: [topic] });
    return opened;
  } finally {
    await admin.disconnect();
  }
};

export const runBrokerFaults = async (options: BrokerFaultOptions = {}): Promise<BrokerFaultReport> => {
  const say = options.say ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const seed = options.seed ?? 29;
  const outageMs = options.outageMs ?? 10_000;
  const gapMs = options.gapMs ?? 5_000;
  const convergeWithinMs = options.convergeWithinMs ?? 120_000;
  const faults = options.faults ?? BROKER_FAULTS;

  // Each node's Kafka data on a tmpfs of the run's own, so that one can be filled up.
  const root = mkdtempSync(join(tmpdir(), 'shoal-faults-'));
  const mounts: string[] = [];
  const cleanup = () => {
    for (const mount of mounts) spawnSync('umount', ['-l', mount]);
    rmSync(root, { recursive: true, force: true });
  };
  let cluster: LocalKafkaCluster | undefined;
  let chaos: ChaosCluster | undefined;
  let network: FaultNetwork | undefined;
  try {
    if (faults.includes('partition')) network = FaultNetwork.create(3);
    if (faults.includes('disk-full')) {
      for (let i = 1; i <= 3; i++) {
        const data = join(root, `node-${i}`, 'data');
        mkdirSync(data, { recursive: true });
        run('mount', ['-t', 'tmpfs', '-o', 'size=1g', `shoal-faults-${i}`, data]);
        mounts.push(data);
      }
    }
    say('starting a KRaft cluster of three nodes…');
    const ids = [1, 2, 3];
    cluster = await LocalKafkaCluster.start({
      nodes: 3,
      dataDir: root,
      ...(network ? { hosts: ids.map((id) => FaultNetwork.host(id)), namespaces: ids.map((id) => FaultNetwork.namespace(id)) } : {}),
    });
    say(`Kafka at ${cluster.brokers.join(',')}`);
    const refusal = await refusedOnCluster(cluster.brokers);
    say(`a topic of 2 replicas, min.insync.replicas 1: ${refusal}`);
    chaos = await ChaosCluster.start({ agents: 2, nodesPerAgent: options.nodesPerAgent ?? 4, brokerOutageMs: 0, snapshotEveryMs: 5_000, say, kafka: cluster });
    const kafka = cluster;
    const deployment = chaos;
    const topic = deployment.topic;
    const acks: Ack[] = [];
    const outcomes: BrokerFaultOutcome[] = [];
    const fullIsr = () => until(120_000, async () => ((await kafka.partition(topic)).isr.length === 3 ? true : undefined));

    for (const [index, fault] of faults.entries()) {
      const problems: string[] = [];
      const workload = new Workload({ sockets: () => deployment.liveSockets(), seed: seed + index, maxServices: 4 });
      workload.start();
      await sleep(gapMs);
      const { leader } = await kafka.partition(topic);
      const at = Date.now();
      let detail = '';
      let isrDuring: number[] | undefined;
      switch (fault) {
        case 'leader':
        case 'controller': {
          const node = fault === 'leader' ? leader : kafka.activeController();
          const what = fault === 'leader' ? `leads ${topic}[0]` : `the active controller; ${topic}[0] led by ${leader}`;
          detail = `SIGKILL of node ${node} (${what}), down ${outageMs / 1000} s, restarted`;
          await kafka.kill(node);
          await sleep(outageMs);
          isrDuring = (await kafka.partition(topic)).isr;
          await kafka.restart(node);
          break;
        }
        case 'rolling': {
          detail = 'nodes 1, 2, 3 in turn shut down (SIGTERM) and started again, each once the partition had three in-sync replicas';
          for (const id of [1, 2, 3]) {
            await kafka.shutdown(id);
            await kafka.restart(id);
            if (!(await fullIsr())) problems.push(`rolling: ${topic}[0] did not get three in-sync replicas back after node ${id} restarted`);
          }
          break;
        }
        case 'disk-full': {
          const data = join(root, `node-${leader}`, 'data');
          detail = `node ${leader}'s data dir (tmpfs, leads ${topic}[0]) filled up, then freed and the node restarted`;
          // Fills whatever space is left: writes then fail with ENOSPC.
          spawnSync('fallocate', ['-l', '1G', join(data, 'filler')]);
          spawnSync('dd', ['if=/dev/zero', `of=${join(data, 'filler-rest')}`, 'bs=1M'], { encoding: 'utf8' });
          const left = await until(120_000, async () => {
            const isr = (await kafka.partition(topic)).isr;
            return isr.includes(leader) ? undefined : isr;
          });
          if (!left) problems.push(`disk-full: node ${leader} stayed in the in-sync replicas of ${topic}[0] with its disk full`);
          isrDuring = left;
          say(`disk-full: in-sync replicas now ${JSON.stringify(left)}, node ${leader} ${kafka.node(leader).running ? 'still running' : 'stopped'}`);
          // The cluster goes on without it: the deployment is whole while the disk is still full.
          await deployment.untilWhole();
          rmSync(join(data, 'filler'), { force: true });
          rmSync(join(data, 'filler-rest'), { force: true });
          if (kafka.node(leader).running) await kafka.shutdown(leader);
          await kafka.restart(leader);
          break;
        }
        case 'partition': {
          if (!network) throw new Error('the partition fault needs the cluster on a network of the run\'s own');
          detail = `node ${leader} (leads ${topic}[0]) cut off from the other nodes for ${(2 * outageMs) / 1000} s, then healed`;
          network.partition(leader);
          await sleep(2 * outageMs);
          isrDuring = (await kafka.partition(topic)).isr;
          network.heal(leader);
          break;
        }
        default: {
          const exhaustive: never = fault;
          throw new Error(`unknown fault ${String(exhaustive)}`);
        }
      }
      await deployment.untilWhole();
      const wholeAt = Date.now();
      const wholeSeconds = (wholeAt - at) / 1_000;
      if (!(await fullIsr())) problems.push(`${topic}[0] did not get three in-sync replicas back`);
      await sleep(gapMs);
      await workload.stop();
      acks.push(...workload.acks);

      let reasons: string[] = [];
      const converged = await until(Math.max(0, wholeAt + convergeWithinMs - Date.now()), async () => {
        reasons = unconverged(deployment.view.state);
        return reasons.length === 0 ? true : undefined;
      });
      const convergedSeconds = converged ? (Date.now() - at) / 1_000 : undefined;
      if (!converged) problems.push(`not converged ${convergeWithinMs / 1000} s after the deployment was whole again: ${reasons.slice(0, 5).join('; ')}`);

      const agreed = await until(60_000, () => agreement(deployment));
      // Judged where the processes agreed (a record written since would make the replay's hash another's).
      const end = agreed?.position ?? (await deployment.highWaterMark());
      const records = await deployment.records(end);
      if (records.length !== end) problems.push(`the judge read ${records.length} records of the ${end} below the log's end`);
      const findings = judgeLog(records, acks, []);
      if (!agreed) {
        const end = await quietly(() => deployment.highWaterMark());
        const seen = await quietly(() => statez(deployment));
        problems.push(`the processes never agreed on one hash at the log's end: end ${end}, ${JSON.stringify(seen?.map((p) => `${p.name} @${p.position} ${p.hash.slice(0, 12)}`))}`);
      }
      else if (agreed.hash !== findings.hash) problems.push(`the processes agree on ${agreed.hash}, a replay from offset 0 reaches ${findings.hash}`);
      for (const [what, list] of [['doubled', findings.doubled], ['lost', findings.lost], ['acknowledged but missing', findings.unacknowledged]] as const) {
        if (list.length > 0) problems.push(`${what}: ${list.length}: ${list.slice(0, 5).join('; ')}`);
      }
      const duplicates = duplicatedRecords(records);
      if (duplicates.length > 0) problems.push(`records on the log twice: ${duplicates.slice(0, 5).map((d) => `${d.type ?? '?'} at ${d.offsets.join(', ')}`).join('; ')}`);
      problems.push(...deployment.exited());
      const isrAfter = (await kafka.partition(topic)).isr;
      const outcome: BrokerFaultOutcome = {
        fault,
        detail,
        at: new Date(at).toISOString(),
        wholeSeconds,
        ...(convergedSeconds !== undefined ? { convergedSeconds } : {}),
        ...(isrDuring ? { isrDuring } : {}),
        isrAfter,
        acks: acks.length,
        records: records.length,
        problems,
      };
      outcomes.push(outcome);
      say(
        `${outcome.at} ${fault}: ${detail}; whole after ${wholeSeconds.toFixed(1)} s, converged after ${convergedSeconds?.toFixed(1) ?? 'NEVER'} s; ` +
          `ISR during ${JSON.stringify(isrDuring ?? [])}, after ${JSON.stringify(isrAfter)}; ${acks.length} writes acknowledged so far, ${records.length} records; ` +
          `${agreed ? `${agreed.processes} processes on one hash` : 'NO AGREEMENT'}; ${problems.length === 0 ? 'PASS' : `FAIL: ${problems.join(' | ')}`}`,
      );
    }
    const problems = outcomes.flatMap((outcome) => outcome.problems.map((problem) => `${outcome.fault}: ${problem}`));
    if (problems.length > 0 && options.logs) {
      deployment.saveOutput(options.logs);
      say(`every process's output is in ${options.logs}`);
    }
    if (!refusal.startsWith('refused')) problems.unshift(`a topic of 2 replicas with min.insync.replicas 1 was not refused on three brokers: ${refusal}`);
    return { seed, refusal, faults: outcomes, problems };
  } catch (error) {
    if (chaos && options.logs) {
      chaos.saveOutput(options.logs);
      say(`every process's output is in ${options.logs}`);
    }
    throw error;
  } finally {
    await chaos?.stop().catch(() => undefined);
    if (cluster) await Promise.all(cluster.nodes.map((node) => node.shutdown().catch(() => undefined)));
    cleanup();
    await cluster?.stop().catch(() => undefined);
    network?.remove();
  }
};
