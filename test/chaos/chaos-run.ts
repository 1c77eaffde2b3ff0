/**
 * One chaos run: the deployment (chaos-cluster.ts) under a continuous workload
 * (workload.ts); poison written onto the topic among its records (poison.ts); the fault
 * schedule — kill -9 of each component's active instance in turn, of an API, of the broker
 * — run `rounds` times (or until `untilMs` has passed); then the workload stops and the run
 * is judged:
 * 1. converged within `convergeWithinMs` of the last fault's recovery (convergence.ts);
 * 2. every process on one state hash at the log's end, the same as a replay from offset 0;
 * 3. from the log (log-checks.ts): nothing doubled, nothing lost, every acknowledged write
 *    there, every poison record counted as poison, by the replay, by `shoal audit verify`
 *    (which checks every process's snapshot too) and by every process's /metrics (each
 *    counts those past where its view started: its snapshot's offset, or 0);
 * 4. a record of a newer version, written last: every process stops on it and says so
 *    (/readyz 503 naming its offset, /metrics), stays live, and all hold the same hash there;
 * 5. no process exited that the run did not kill.
 * Failures are collected as sentences (`problems`), so that a long soak reports them all.
 */
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { runShoalCli } from '../../libs/testing/src/processes/spawn-shoal';
import { ChaosCluster, FAULTS, quietly } from './chaos-cluster';
import type { FaultOutcome } from './chaos-cluster';
import { unconverged, unconvergedDetail } from './convergence';
import { judgeLog } from './log-checks';
import type { LogFindings } from './log-checks';
import { futureRecord, poisonKinds, writeRaw } from './poison';
import { Workload } from './workload';
import type { WorkloadTally } from './workload';

export interface ChaosOptions {
  /** Times the fault schedule runs (default 1); with `untilMs`, at least this many. */
  readonly rounds?: number;
  /** Keep running rounds until this many ms have passed since the first fault. */
  readonly untilMs?: number;
  readonly seed?: number;
  readonly agents?: number;
  readonly nodesPerAgent?: number;
  /** How long the broker stays down (default 10 s, as the soak's). */
  readonly brokerOutageMs?: number;
  /** Workload between two faults, once the deployment is whole again (default 3 s). */
  readonly gapMs?: number;
  /** The bound: every service converged within this long of the last fault's recovery. */
  readonly convergeWithinMs: number;
  readonly say?: (line: string) => void;
  /** Where to write every process's output when a check fails (default: nowhere). */
  readonly logs?: string;
}

export interface HashAgreement {
  readonly position: number;
  readonly hash: string;
  /** Processes that answered: components (standbys too) and APIs. */
  readonly processes: number;
}

export interface ChaosReport {
  readonly seed: number;
  readonly rounds: number;
  readonly faults: readonly FaultOutcome[];
  readonly workload: WorkloadTally & { readonly acks: number };
  /** Seconds from the last fault's recovery (the deployment whole again; the workload ran on for the gap after it) until every service had converged. */
  readonly convergedSeconds?: number;
  readonly agreement?: HashAgreement;
  readonly findings: LogFindings;
  /** Poison written; counted by the audit; counted by each process's /metrics (past where its view started). */
  readonly poison: { readonly written: number; readonly kinds: readonly string[]; readonly counts: readonly ViewCount[]; readonly auditCounted?: number };
  readonly future: { readonly offset: number; readonly haltedProcesses: number; readonly agreement?: HashAgreement };
  readonly problems: readonly string[];
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `probe` answers, or `ms` pass; the last answer either way, with whether it was in time. */
const within = async <T>(ms: number, probe: () => Promise<T | undefined>): Promise<{ value?: T; inTime: boolean; seconds: number }> => {
  const started = Date.now();
  for (;;) {
    const value = await quietly(probe);
    if (value !== undefined) return { value, inTime: true, seconds: (Date.now() - started) / 1_000 };
    if (Date.now() - started > ms) return { inTime: false, seconds: (Date.now() - started) / 1_000 };
    await sleep(250);
  }
};

/** Each process's /statez: every component instance and every API. */
export const statez = async (chaos: ChaosCluster): Promise<{ name: string; position: number; hash: string }[]> => {
  const { cluster } = chaos;
  const components = await Promise.all(cluster.components.map(async (c) => ({ name: `${c.name} (pid ${c.process.pid})`, ...(await cluster.stateHash(c)) })));
  const apis = await Promise.all(chaos.apis.map(async (api) => ({ name: api.name, ...(await dockerApi<{ position: number; hash: string }>(api.socket, 'GET', '/statez')).body })));
  return [...components, ...apis];
};

/** Every process at `position` (the log's end unless given) on one hash; undefined until then. */
export const agreement = async (chaos: ChaosCluster, position?: number): Promise<HashAgreement | undefined> => {
  const at = position ?? (await chaos.highWaterMark());
  const all = await statez(chaos);
  if (!all.every((p) => p.position === at)) return undefined;
  const hashes = new Set(all.map((p) => p.hash));
  return hashes.size === 1 ? { position: at, hash: all[0]!.hash, processes: all.length } : undefined;
};

/** What a process's /metrics says of its view: the poison it counted, where it started, whether it has stopped. */
export interface ViewCount {
  readonly name: string;
  readonly poison: number;
  readonly startedAt: number;
  readonly halted: boolean;
}

/** One sample of a /metrics text, by its name and labels as written after the view's (each process here holds one view). */
const sample = (text: string, name: string, labels = ''): number => {
  const line = new RegExp(`^${name}\\{view="[^"]+"${labels.replace(/[{}]/g, '\\$&')}\\} (\\d+)$`, 'm').exec(text);
  if (!line) throw new Error(`no ${name}{view=…${labels}} in /metrics`);
  return Number(line[1]);
};

const viewCount = (name: string, text: string): ViewCount => ({
  name,
  poison: sample(text, 'shoal_records_total', ',verdict="poison"'),
  startedAt: sample(text, 'shoal_view_started_at'),
  halted: sample(text, 'shoal_view_halted') === 1,
});

/** Every process's view, by its /metrics: every component instance and every API. */
const viewCounts = async (chaos: ChaosCluster): Promise<ViewCount[]> => [
  ...(await Promise.all(chaos.cluster.components.map(async (c) => viewCount(`${c.name} (pid ${c.process.pid})`, await (await fetch(`http://127.0.0.1:${c.healthPort}/metrics`, { signal: AbortSignal.timeout(10_000) })).text())))),
  ...(await Promise.all(chaos.apis.map(async (api) => viewCount(api.name, String((await dockerApi<string>(api.socket, 'GET', '/metrics')).body))))),
];

interface AuditVerify {
  readonly code: number | null;
  readonly agree?: boolean;
  readonly poison?: number;
  readonly halted?: { readonly offset: number };
  readonly checks?: readonly { readonly name: string; readonly agrees: boolean }[];
}

const auditVerify = async (chaos: ChaosCluster): Promise<AuditVerify> => {
  const ran = await runShoalCli(['audit', 'verify', '--json'], chaos.deployment.env, 300_000);
  try {
    const report = JSON.parse(ran.stdout) as { agree: boolean; tally: { poison: number }; halted?: { offset: number }; checks: { name: string; agrees: boolean }[] };
    return { code: ran.code, agree: report.agree, poison: report.tally.poison, checks: report.checks, ...(report.halted ? { halted: report.halted } : {}) };
  } catch {
    return { code: ran.code };
  }
};

export const runChaos = async (options: ChaosOptions): Promise<ChaosReport> => {
  const say = options.say ?? ((line: string) => void process.stderr.write(`${line}\n`));
  const seed = options.seed ?? 22;
  const problems: string[] = [];
  const chaos = await ChaosCluster.start({
    agents: options.agents ?? 2,
    nodesPerAgent: options.nodesPerAgent ?? 6,
    brokerOutageMs: options.brokerOutageMs ?? 10_000,
    snapshotEveryMs: 5_000,
    say,
  });
  try {
    const workload = new Workload({ sockets: () => chaos.liveSockets(), seed });
    workload.start();
    const kinds = poisonKinds(chaos.clusterId);
    const poisonOffsets: number[] = [];
    const poison = async (): Promise<void> => {
      poisonOffsets.push(...(await writeRaw(chaos.brokers, chaos.topic, chaos.clusterId, kinds.map((kind) => kind.value))));
      say(`poison written at offsets ${poisonOffsets.slice(-kinds.length).join(', ')}`);
    };
    await sleep(options.gapMs ?? 3_000);
    await poison();

    // The fault schedule: every component's active instance, an API, the broker, in turn.
    const faults: FaultOutcome[] = [];
    const started = Date.now();
    let rounds = 0;
    while (rounds < (options.rounds ?? 1) || (options.untilMs !== undefined && Date.now() - started < options.untilMs)) {
      rounds++;
      for (const [i, fault] of FAULTS.entries()) {
        const outcome = await chaos.inject(fault);
        faults.push(outcome);
        say(`${new Date(outcome.at).toISOString()} round ${rounds}: kill -9 ${fault}: whole again after ${outcome.recoveredSeconds.toFixed(1)} s (${workload.acks.length} writes acknowledged so far)`);
        if (rounds === 1 && i === Math.floor(FAULTS.length / 2)) await poison();
        await sleep(options.gapMs ?? 3_000);
      }
    }
    // Faults stop once the deployment is whole after the last one; the workload runs on for the gap.
    const lastRecovered = faults[faults.length - 1]!.wholeAt;
    await workload.stop();
    say(`workload stopped: ${workload.tally.requests} requests, answers ${JSON.stringify(workload.tally.answers)}`);

    // 1. Converged within the bound.
    let lastReasons: string[] = [];
    const converged = await within(Math.max(0, lastRecovered + options.convergeWithinMs - Date.now()), async () => {
      lastReasons = unconverged(chaos.view.state);
      return lastReasons.length === 0 ? true : undefined;
    });
    const convergedSeconds = converged.inTime && Date.now() - lastRecovered <= options.convergeWithinMs ? (Date.now() - lastRecovered) / 1_000 : undefined;
    if (convergedSeconds === undefined) {
      problems.push(`not converged ${options.convergeWithinMs / 1_000} s after the last fault: ${lastReasons.join('; ')}`);
      for (const line of unconvergedDetail(chaos.view.state)) say(line);
    }
    else say(`converged ${convergedSeconds!.toFixed(1)} s after the last fault's recovery`);

    // 2. One state hash in every process, at the log's end.
    const agreed = await within(60_000, () => agreement(chaos));
    if (!agreed.value) problems.push(`the processes never agreed on one hash at the log's end: ${JSON.stringify(await quietly(() => statez(chaos)))}`);

    // 3. The log, replayed from offset 0; the audit; every process's count of poison. Judged
    // where the processes agreed: a record written since (a checkpoint, a node's status) would
    // make the replay's hash another's, as broker-faults.ts judges.
    const end = agreed.value?.position ?? (await chaos.highWaterMark());
    const findings = judgeLog(await chaos.records(end), workload.acks, poisonOffsets);
    if (agreed.value && findings.hash !== agreed.value.hash) problems.push(`the processes agree on ${agreed.value.hash}, a replay from offset 0 reaches ${findings.hash}`);
    for (const [what, list] of [['doubled', findings.doubled], ['lost', findings.lost], ['unacknowledged', findings.unacknowledged], ['poison', findings.poisonMismatch]] as const) {
      if (list.length > 0) problems.push(`${what}: ${list.length}: ${list.slice(0, 10).join('; ')}`);
    }
    if (findings.tally.poison !== poisonOffsets.length) problems.push(`the replay counted ${findings.tally.poison} poison records, ${poisonOffsets.length} were written`);
    const audit = await auditVerify(chaos);
    if (audit.code !== 0 || !audit.agree) problems.push(`shoal audit verify exited ${audit.code}: ${JSON.stringify(audit.checks)}`);
    if (audit.poison !== poisonOffsets.length) problems.push(`shoal audit verify counted ${audit.poison} poison records, ${poisonOffsets.length} were written`);
    // Each process counts the poison past where its view started (a restarted one: its snapshot's offset).
    const counts = await viewCounts(chaos);
    for (const count of counts) {
      const expected = poisonOffsets.filter((offset) => offset >= count.startedAt).length;
      if (count.poison !== expected) problems.push(`${count.name}'s /metrics counts ${count.poison} poison records; ${expected} were written past where its view started (${count.startedAt})`);
    }

    // 4. A record of a newer version, last: every process stops on it, says so, and stays live.
    const [future] = await writeRaw(chaos.brokers, chaos.topic, chaos.clusterId, [futureRecord(chaos.clusterId)]);
    say(`a record of a newer version written at offset ${future}`);
    const halted = await within(60_000, async () => {
      const answers = await Promise.all(chaos.cluster.components.map((c) => fetch(`http://127.0.0.1:${c.healthPort}/readyz`, { signal: AbortSignal.timeout(10_000) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { halted?: string } }))));
      return answers.every((a) => a.status === 503 && a.body.halted?.includes(`offset ${future!}`)) ? answers.length : undefined;
    });
    if (!halted.value) problems.push(`not every component stopped on the record of a newer version at ${future} and said so on /readyz`);
    const apisNotReady = await Promise.all(chaos.apis.map(async (api) => (await dockerApi(api.socket, 'GET', '/readyz')).status));
    if (apisNotReady.some((status) => status !== 503)) problems.push(`an API answered /readyz ${apisNotReady.join(', ')} past a record it cannot read`);
    const stopped = await viewCounts(chaos);
    if (!stopped.every((count) => count.halted)) problems.push(`not every process's /metrics says it stopped: ${stopped.filter((count) => !count.halted).map((count) => count.name).join(', ')}`);
    const live = await Promise.all(chaos.cluster.components.map((c) => fetch(`http://127.0.0.1:${c.healthPort}/healthz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.status)));
    if (live.some((status) => status !== 200)) problems.push(`a component stopped on the newer record is not live: /healthz ${live.join(', ')}`);
    const haltedAgreement = await within(60_000, () => agreement(chaos, future));
    if (!haltedAgreement.value) problems.push(`the processes stopped on ${future} do not agree on one hash there: ${JSON.stringify(await quietly(() => statez(chaos)))}`);
    const judgedToFuture = judgeLog(await chaos.records(await chaos.highWaterMark()), [], poisonOffsets);
    if (judgedToFuture.halted?.offset !== future) problems.push(`a replay did not stop at the newer record (${future}): ${JSON.stringify(judgedToFuture.halted)}`);
    if (haltedAgreement.value && judgedToFuture.hash !== haltedAgreement.value.hash) problems.push(`stopped at ${future}, the processes hold ${haltedAgreement.value.hash}, a replay ${judgedToFuture.hash}`);
    const haltedAudit = await auditVerify(chaos);
    if (haltedAudit.code !== 1 || haltedAudit.halted?.offset !== future || !haltedAudit.agree) {
      problems.push(`shoal audit verify past the newer record: exit ${haltedAudit.code}, halted ${JSON.stringify(haltedAudit.halted)}, agree ${haltedAudit.agree}`);
    }

    // 5. Nothing exited that the run did not kill.
    problems.push(...chaos.exited());
    if (problems.length > 0 && options.logs) {
      chaos.saveOutput(options.logs);
      say(`every process's output is in ${options.logs}`);
    }

    return {
      seed,
      rounds,
      faults,
      workload: { ...workload.tally, acks: workload.acks.length },
      ...(convergedSeconds !== undefined ? { convergedSeconds } : {}),
      ...(agreed.value ? { agreement: agreed.value } : {}),
      findings,
      poison: { written: poisonOffsets.length, kinds: kinds.map((kind) => kind.name), counts, ...(audit.poison !== undefined ? { auditCounted: audit.poison } : {}) },
      future: { offset: future!, haltedProcesses: halted.value ?? 0, ...(haltedAgreement.value ? { agreement: haltedAgreement.value } : {}) },
      problems,
    };
  } catch (error) {
    // A run that could not finish: what every process said is the first thing to read.
    if (options.logs) {
      chaos.saveOutput(options.logs);
      say(`every process's output is in ${options.logs}; the last of it:`);
      for (const line of chaos.digest()) say(line);
    }
    throw error;
  } finally {
    await chaos.stop();
  }
};
