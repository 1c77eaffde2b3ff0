/**
 * A Shoal cluster for the end-to-end benchmarks, every component its own process on a
 * real broker: the API (swarm initialised through its unix socket), the allocator, the
 * orchestrator, one or more schedulers, the reaper, the dispatcher, and --fleets agent
 * processes that share --nodes simulated nodes.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { eventually } from '../../libs/testing/src/eventually';
import type { ShoalEntry } from './compiled';

export interface Health {
  readonly state: string;
  readonly term?: number;
}

export interface Member {
  /** "api", "scheduler", "scheduler-2", "agents-1", … */
  readonly name: string;
  readonly process: ShoalProcess;
  /** The /healthz port (agents have none). */
  readonly healthPort?: number;
}

export interface ClusterOptions {
  readonly brokers: readonly string[];
  readonly entry: ShoalEntry;
  readonly nodes: number;
  readonly fleets: number;
  readonly schedulers: number;
  /** Node flags per component name (e.g. --cpu-prof for one of them). */
  readonly flags?: (name: string) => readonly string[];
  /** How long starting may take, in ms. */
  readonly timeoutMs?: number;
}

export const health = async (port: number): Promise<Health> => (await (await fetch(`http://127.0.0.1:${port}/healthz`)).json()) as Health;

/** A size the process's /proc/<pid>/status gives in kB (VmRSS, VmHWM, …), in bytes, when it can tell. */
const statusBytes = (pid: number | undefined, field: string): number | undefined => {
  if (pid === undefined || !existsSync(`/proc/${pid}/status`)) return undefined;
  try {
    const line = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
};

/** The process's peak resident set (VmHWM) in bytes, when /proc can tell. */
export const peakRss = (pid: number | undefined): number | undefined => statusBytes(pid, 'VmHWM');

/** The process's resident set now (VmRSS) in bytes, when /proc can tell. */
export const rss = (pid: number | undefined): number | undefined => statusBytes(pid, 'VmRSS');

/** Seconds of CPU (user + system, every thread) a process has used, from its /proc/<pid>/stat; Linux counts in ticks of 1/100 s. */
export const cpuSeconds = (stat: string, ticksPerSecond = 100): number => {
  // The fields after the command name, which is in parentheses and may hold spaces or parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line: 12 and 13 after the name.
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
};

/** Seconds of CPU the live process `pid` has used so far. */
export const processCpu = (pid: number): number => cpuSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));

export class BenchCluster {
  readonly members: Member[] = [];
  /** Processes a restart replaced: their output is kept with the others'. */
  private readonly retired: Member[] = [];
  readonly socket: string;
  readonly topic: string;
  private readonly peaks = new Map<string, number>();

  private constructor(
    private readonly options: ClusterOptions,
    readonly env: NodeJS.ProcessEnv,
    private readonly dataDir: string,
  ) {
    this.socket = join(dataDir, 'shoal.sock');
    this.topic = `${env.SHOAL_TOPIC_PREFIX}.events`;
  }

  /** Starts every process, initialises the swarm, and waits until all nodes are ready. */
  static async start(options: ClusterOptions): Promise<BenchCluster> {
    const dataDir = mkdtempSync(join(tmpdir(), 'shoal-bench-'));
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      KAFKA_BROKERS: options.brokers.join(','),
      SHOAL_TOPIC_PREFIX: `bench-${randomUUID().slice(0, 8)}`,
      SHOAL_DATA_DIR: dataDir,
      SHOAL_HEALTH_PORT: '0',
      SHOAL_API_PORT: '0',
      SHOAL_DISPATCHER_PORT: '0',
    };
    const cluster = new BenchCluster(options, env, dataDir);
    try {
      await cluster.boot();
      return cluster;
    } catch (error) {
      process.stderr.write(cluster.members.map((m) => `--- ${m.name}\n${m.process.output.slice(-2_000)}`).join('\n'));
      await cluster.stop();
      throw error;
    }
  }

  private get timeout(): number {
    return this.options.timeoutMs ?? 180_000;
  }

  private spawn(name: string, args: readonly string[]): ShoalProcess {
    const p = ShoalProcess.node(this.options.entry.argv(args, this.options.flags?.(name) ?? []), this.env);
    this.members.push({ name, process: p });
    return p;
  }

  private async boot(): Promise<void> {
    const say = (line: string): void => void process.stderr.write(`${line}\n`);
    const api = this.spawn('api', ['run', 'api']);
    await api.waitFor(/api: listening on/, this.timeout);
    const init = await dockerApi(this.socket, 'POST', '/v1.47/swarm/init', { ListenAddr: '0.0.0.0:2377' });
    if (init.status !== 200) throw new Error(`swarm init answered ${init.status}: ${JSON.stringify(init.body)}`);
    const names = ['allocator', 'orchestrator', 'reaper', 'dispatcher', ...Array.from({ length: this.options.schedulers }, (_, i) => (i === 0 ? 'scheduler' : `scheduler-${i + 1}`))];
    for (const name of names) this.spawn(name, ['run', name.replace(/-\d+$/, '')]);
    for (const member of [...this.members]) {
      if (member.name === 'api') continue;
      const [, port] = await member.process.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, this.timeout);
      this.members[this.members.indexOf(member)] = { ...member, healthPort: Number(port) };
    }
    const [, dispatcherPort] = await this.member('dispatcher').process.waitFor(/dispatcher: agents on 127\.0\.0\.1:(\d+)/, this.timeout);
    for (const name of ['allocator', 'orchestrator', 'reaper', 'dispatcher']) {
      await eventually(`the ${name} is active`, async () => ((await health(this.member(name).healthPort!)).state === 'active' ? true : undefined), this.timeout);
    }
    await eventually('one scheduler is active', async () => ((await this.activeScheduler()) ? true : undefined), this.timeout);
    say(`components up (${this.options.entry.description}); starting ${this.options.nodes} simulated nodes in ${this.options.fleets} agent processes…`);
    const swarm = await dockerApi<{ JoinTokens: { Worker: string } }>(this.socket, 'GET', '/swarm');
    const fleets = Math.min(this.options.fleets, this.options.nodes);
    for (let i = 0; i < fleets; i++) {
      const count = Math.floor(this.options.nodes / fleets) + (i < this.options.nodes % fleets ? 1 : 0);
      this.spawn(`agents-${i + 1}`, ['agent', '--simulate', String(count), '--join-token', swarm.body.JoinTokens.Worker, '--dispatcher', `127.0.0.1:${dispatcherPort}`, '--hostname-prefix', `f${i + 1}-`]);
    }
    // /nodes is polled once a second: at thousands of nodes it is a large answer.
    const deadline = Date.now() + this.timeout * 4;
    let last = -1;
    for (;;) {
      // The agents' nodes: /nodes lists the control plane (a manager) too.
      const { body } = await dockerApi<{ Status: { State: string } }[]>(this.socket, 'GET', `/nodes?filters=${encodeURIComponent('{"role":["worker"]}')}`);
      const ready = body.filter((n) => n.Status.State === 'ready').length;
      if (ready !== last) say(`${ready} / ${this.options.nodes} nodes ready`);
      last = ready;
      if (ready >= this.options.nodes) return;
      const dead = this.members.find((m) => m.process.exitCode !== null);
      if (dead) throw new Error(`${dead.name} exited with ${dead.process.exitCode}:\n${dead.process.output.slice(-2_000)}`);
      if (Date.now() > deadline) throw new Error(`only ${ready} of ${this.options.nodes} nodes were ready after ${(this.timeout * 4) / 1e3} s`);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  }

  member(name: string): Member {
    const found = this.members.find((m) => m.name === name);
    if (!found) throw new Error(`no member ${name}`);
    return found;
  }

  schedulers(): Member[] {
    return this.members.filter((m) => m.name.startsWith('scheduler'));
  }

  /** The scheduler whose /healthz says active (a dead one does not answer). */
  async activeScheduler(): Promise<(Member & { readonly term?: number }) | undefined> {
    for (const s of this.schedulers()) {
      if (s.process.exitCode !== null || s.healthPort === undefined) continue;
      const h = await health(s.healthPort).catch(() => undefined);
      if (h?.state === 'active') return { ...s, term: h.term };
    }
    return undefined;
  }

  /**
   * Stops the component `name` (SIGTERM, as a supervisor would) and starts it again with the
   * same command, as each component restarts in production: from its snapshot, then the log's
   * tail. Resolves with the ms from the new process's start until its /readyz answers 200
   * (its view caught up with the log) and until its /healthz says active again.
   */
  /**
   * Stops `name` (SIGTERM; it saves its view's snapshot on the way out, given up to a minute,
   * as an orchestrator's grace period would), starts it again, and times it back to ready and active.
   */
  async restart(name: string): Promise<{ readonly stopMs: number; readonly readyMs: number; readonly activeMs: number }> {
    const index = this.members.findIndex((m) => m.name === name);
    if (index < 0) throw new Error(`no member ${name}`);
    const old = this.members[index]!;
    this.samplePeaks();
    const stopping = Date.now();
    await old.process.stop(60_000);
    const stopMs = Date.now() - stopping;
    this.retired.push({ name: `${name}-before-restart`, process: old.process });
    const started = Date.now();
    const next = ShoalProcess.node(this.options.entry.argv(['run', name.replace(/-\d+$/, '')], this.options.flags?.(name) ?? []), this.env);
    this.members[index] = { name, process: next };
    const [, port] = await next.waitFor(/health on http:\/\/127\.0\.0\.1:(\d+)\/healthz/, this.timeout);
    this.members[index] = { name, process: next, healthPort: Number(port) };
    const ready = async (): Promise<boolean> => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200;
    await eventually(`the restarted ${name} is ready`, ready, { timeoutMs: this.timeout, everyMs: 25 });
    const readyMs = Date.now() - started;
    await eventually(`the restarted ${name} is active`, async () => ((await health(Number(port)).catch(() => undefined))?.state === 'active' ? true : undefined), { timeoutMs: this.timeout, everyMs: 25 });
    return { stopMs, readyMs, activeMs: Date.now() - started };
  }

  /** Records each live process's peak RSS so far (call before killing or stopping one). */
  samplePeaks(): void {
    for (const m of this.members) {
      const peak = peakRss(m.process.pid);
      if (peak !== undefined) this.peaks.set(m.name, Math.max(peak, this.peaks.get(m.name) ?? 0));
    }
  }

  /** Peak RSS in bytes per process name, as last sampled. */
  peakRss(): ReadonlyMap<string, number> {
    return this.peaks;
  }

  /**
   * Stops every process (SIGTERM, SIGKILL after `graceMs`) and keeps their output in
   * `logs/<name>.log` when `logs` is given.
   */
  async stop(logs?: string, graceMs = 15_000): Promise<void> {
    this.samplePeaks();
    await Promise.all(this.members.map((m) => m.process.stop(graceMs)));
    if (logs) {
      mkdirSync(logs, { recursive: true });
      for (const m of [...this.members, ...this.retired]) writeFileSync(join(logs, `${m.name}.log`), m.process.output);
    }
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
