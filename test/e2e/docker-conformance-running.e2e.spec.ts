/**
 * Docker conformance of tasks placed and running, and of their output, side by side: the
 * test run's engine in swarm mode (its manager is also its one worker: it runs the service's
 * containers itself) and Shoal with one node of its own on the docker executor
 * (test/conformance/cluster-side.ts), whose containers run on the same engine. The same
 * service, two replicas of the offline busybox image printing known lines on stdout and
 * stderr, runs on both; `/tasks` (each filter that matters for running tasks), a running
 * task's inspect, `docker service ps`, `/services/{id}/logs`, `/tasks/{id}/logs` and
 * `docker service logs` are compared after the one normaliser (test/conformance/normalise.ts);
 * then the service is scaled to one (the task stood down goes on both), and two more
 * services' tasks end, one exiting 0 and one 3, not restarted; one task is rejected (its image on no
 * registry either engine can reach: a loopback port where nothing listens). Shoal's node is named as the engine's (a node's name is its machine's), so the docker CLI
 * prints the same node on both. Where Shoal differs on purpose, the exact difference is
 * pinned here and explained in docs/docker-compatibility.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dockerCli } from '../../libs/testing/src/processes/docker-cli';
import type { DockerCliResult } from '../../libs/testing/src/processes/docker-cli';
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { startShoalWithNode } from '../conformance/cluster-side';
import type { ShoalNodeSide } from '../conformance/cluster-side';
import { cliLine, logPayload } from '../conformance/normalise';
import { rawExchange } from '../conformance/raw-exchange';
import type { RawExchange } from '../conformance/raw-exchange';
import { conformanceEngine, ensureSwarm } from '../conformance/sides';

const IMAGE = 'shoal-test/busybox:latest';
const run = `rn${Date.now().toString(36)}`;
const name = `${run}-echo`;
/**
 * What each task prints: two lines on stdout, one on stderr between them, then it runs until
 * stopped. A pause between lines: an engine copies a container's stdout and stderr each on
 * its own, so lines printed at once on the two may be logged in either order.
 */
const SCRIPT = 'echo one on stdout; sleep 0.2; echo two on stderr >&2; sleep 0.2; echo "three, with  spaces"; exec sleep 3600';
/** What each task prints, in order: [stream (1 stdout, 2 stderr, as a log frame's header), line]. */
const PRINTED: readonly (readonly [1 | 2, string])[] = [
  [1, 'one on stdout\n'],
  [2, 'two on stderr\n'],
  [1, 'three, with  spaces\n'],
];
/** A swarm log line's details (with `details`): its task's context, ids normalised. */
const DETAILS = 'com.docker.swarm.node.id=<id>,com.docker.swarm.service.id=<id>,com.docker.swarm.task.id=<id> ';
type Side = 'engine' | 'shoal';
type Ids = Record<Side, string>;
interface Task {
  ID: string;
  Slot?: number;
  NodeID?: string;
  DesiredState: string;
  Status: { State: string };
}
const SIDES: readonly Side[] = ['engine', 'shoal'];
const bySlot = (body: unknown): unknown => (Array.isArray(body) ? [...(body as Task[])].sort((a, b) => (a.Slot ?? 0) - (b.Slot ?? 0)) : body);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/**
 * Pinned (docs/docker-compatibility.md, tasks placed and running): Shoal names a task
 * (`<service>.<slot>`) and shows its spec's Runtime, as on pending tasks. A running task's
 * ContainerStatus (its container's id, its PID, exit code 0) is compared: the id and PID
 * are each engine's own, and are checked against the engine that runs the container.
 */
const pinned = (at: string, slot: number): string[] => [`${at}Name: engine absent, shoal "${name}.${slot}"`, `${at}Spec.Runtime: engine absent, shoal "container"`];
/** The pinned differences of a list of tasks, by slot. */
const pinnedList = (body: unknown): string[] => (body as Task[]).flatMap((task, i) => pinned(`[${i}].`, task.Slot!));

/** A multiplexed log body's frames (moby's stdcopy), as `stream payload`. */
const framesOf = (body: Buffer): { stream: number; payload: string }[] => {
  const frames: { stream: number; payload: string }[] = [];
  for (let at = 0; at + 8 <= body.length; ) {
    const size = body.readUInt32BE(at + 4);
    frames.push({ stream: body[at]!, payload: body.subarray(at + 8, at + 8 + size).toString('utf8') });
    at += 8 + size;
  }
  return frames;
};

/** What a followed log stream (`follow=1`) sent in `ms`, and whether it had ended by then. */
const following = (socketPath: string, path: string, ms: number): Promise<{ status: number; body: Buffer; ended: boolean }> =>
  new Promise((resolve, reject) => {
    const req = request({ socketPath, method: 'GET', path, headers: { Host: 'docker' } }, (res) => {
      const chunks: Buffer[] = [];
      let ended = false;
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => (ended = true));
      setTimeout(() => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks), ended });
        req.destroy();
      }, ms);
    });
    req.on('error', (error) => (req.destroyed ? undefined : reject(error)));
    req.end();
  });

describe('tasks placed and running, and their output, at API 1.41: Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalNodeSide | undefined;
  let diff: Differential;
  let sockets: Ids;
  let home: string;
  const services: Ids = { engine: '', shoal: '' };
  /** Each side's node: the engine's manager, Shoal's docker node. */
  const nodes: Ids = { engine: '', shoal: '' };
  let hostname = '';
  /** Each side's tasks, by slot. */
  const tasks: Record<Side, Task[]> = { engine: [], shoal: [] };

  const tasksOf = async (filters: object | ((side: Side) => object)): Promise<SideBySide> => {
    const each = (side: Side): object => (typeof filters === 'function' ? (filters as (side: Side) => object)(side) : filters);
    const answer = await diff.sendEach('GET', {
      engine: `/tasks?filters=${encodeURIComponent(JSON.stringify(each('engine')))}`,
      shoal: `/tasks?filters=${encodeURIComponent(JSON.stringify(each('shoal')))}`,
    });
    return { engine: { ...answer.engine, body: bySlot(answer.engine.body) }, shoal: { ...answer.shoal, body: bySlot(answer.shoal.body) } };
  };
  const logs = async (path: (side: Side) => string): Promise<Record<Side, RawExchange>> => {
    const [engine, shoalAnswer] = await Promise.all(SIDES.map((side) => rawExchange(sockets[side], 'GET', `/v1.41${path(side)}`, 20_000)));
    return { engine: engine!, shoal: shoalAnswer! };
  };
  const cli = async (args: (side: Side) => string[]): Promise<Record<Side, DockerCliResult>> => {
    const [engine, shoalAnswer] = await Promise.all(SIDES.map((side) => dockerCli(join(home, side), args(side), { socket: sockets[side] })));
    return { engine: engine!, shoal: shoalAnswer! };
  };

  beforeAll(async () => {
    const engine = conformanceEngine();
    await ensureSwarm(engine);
    home = mkdtempSync(join(tmpdir(), 'shoal-conformance-running-'));
    const probe = new Differential(engine, engine);
    nodes.engine = ((await probe.engineOnly('GET', '/info')).body as { Swarm: { NodeID: string } }).Swarm.NodeID;
    hostname = ((await probe.engineOnly('GET', `/nodes/${nodes.engine}`)).body as { Description: { Hostname: string } }).Description.Hostname;
    shoal = await startShoalWithNode('conformance-running', { engine: `unix://${engine}`, hostname });
    nodes.shoal = shoal.nodeId;
    diff = new Differential(engine, shoal.socket);
    sockets = { engine, shoal: shoal.socket };
    const created = await diff.send('POST', '/services/create', {
      Name: name,
      Labels: { [run]: 'running' },
      TaskTemplate: { ContainerSpec: { Image: IMAGE, Command: ['sh', '-c', SCRIPT], StopGracePeriod: 1_000_000_000 } },
      Mode: { Replicated: { Replicas: 2 } },
    });
    for (const side of SIDES) services[side] = created[side].status === 201 ? (created[side].body as { ID: string }).ID : '';
    expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
    // Until both sides' two tasks run and have printed their lines.
    const printed = PRINTED.length;
    for (let attempt = 0; attempt < 300; attempt++) {
      const answer = await tasksOf({ service: [name] });
      const running = (body: unknown) => Array.isArray(body) && body.length === 2 && (body as Task[]).every((task) => task.Status.State === 'running');
      if (running(answer.engine.body) && running(answer.shoal.body)) {
        const out = await logs((side) => `/services/${services[side]}/logs?stdout=1&stderr=1`);
        if (SIDES.every((side) => framesOf(out[side].body).length === 2 * printed)) {
          for (const side of SIDES) tasks[side] = answer[side].body as Task[];
          break;
        }
      }
      await sleep(200);
    }
    expect(SIDES.map((side) => tasks[side].length)).toEqual([2, 2]);
  }, 240_000);
  afterAll(async () => {
    if (services.engine) await diff.engineOnly('DELETE', `/services/${services.engine}`);
    if (services.shoal) await diff.shoalOnly('DELETE', `/services/${services.shoal}`);
    await shoal?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it("the running tasks list the same on both: spec, slot, desired and current state, the executor's message", async () => {
    const answer = await tasksOf({ service: [name] });
    expect(Differential.compare(answer)).toEqual({ status: [], body: pinnedList(answer.shoal.body) });
    for (const side of SIDES) {
      const listed = answer[side].body as (Task & { Status: { Message: string } })[];
      expect({ side, tasks: listed.map((task) => [task.Slot, task.NodeID, task.DesiredState, task.Status.State, task.Status.Message]) }).toEqual({
        side,
        tasks: [1, 2].map((slot) => [slot, nodes[side], 'running', 'running', 'started']),
      });
    }
  });

  it('each filter that matters for running tasks finds the same tasks on both', async () => {
    const slotOne = (side: Side): string => tasks[side].find((task) => task.Slot === 1)!.ID;
    const cases: [string, object | ((side: Side) => object), number][] = [
      ['desired-state running', { service: [name], 'desired-state': ['running'] }, 2],
      ['desired-state shutdown', { service: [name], 'desired-state': ['shutdown'] }, 0],
      ['desired-state running and shutdown', { service: [name], 'desired-state': ['running', 'shutdown'] }, 2],
      ['node by id', (side) => ({ service: [name], node: [nodes[side]] }), 2],
      ['node by id prefix', (side) => ({ service: [name], node: [nodes[side].slice(0, 6)] }), 2],
      ['node by name', { service: [name], node: [hostname] }, 2],
      ['node and desired-state running', (side) => ({ service: [name], node: [nodes[side]], 'desired-state': ['running'] }), 2],
      ['node and desired-state shutdown', (side) => ({ service: [name], node: [nodes[side]], 'desired-state': ['shutdown'] }), 0],
      ['name, one slot', { name: [`${name}.2`] }, 1],
      ['id, a prefix of one', (side) => ({ id: [slotOne(side).slice(0, 10)] }), 1],
      ['label of the service, desired-state running', { label: [`${run}=running`], 'desired-state': ['running'] }, 2],
    ];
    for (const [what, filters, count] of cases) {
      const answer = await tasksOf(filters);
      expect({ what, counts: SIDES.map((side) => (answer[side].body as unknown[]).length), ...Differential.compare(answer) }).toEqual({
        what,
        counts: [count, count],
        status: [],
        body: pinnedList(answer.shoal.body),
      });
    }
  });

  it("a running task's inspect is the same on both", async () => {
    const answer = await diff.sendEach('GET', { engine: `/tasks/${tasks.engine[0]!.ID}`, shoal: `/tasks/${tasks.shoal[0]!.ID}` });
    expect(Differential.compare(answer)).toEqual({ status: [], body: pinned('', 1) });
    for (const side of SIDES) expect({ side, id: (answer[side].body as Task).ID, node: (answer[side].body as Task).NodeID }).toEqual({ side, id: tasks[side][0]!.ID, node: nodes[side] });
  });

  it("a running task's ContainerStatus names its container on the engine, running with that PID, on both", async () => {
    type Running = Task & { Slot: number; Status: { ContainerStatus?: { ContainerID: string; PID: number; ExitCode: number } } };
    type Container = { Name: string; State: { Running: boolean; Pid: number }; Config: { Labels: Record<string, string> } };
    for (const side of SIDES) {
      for (const task of tasks[side]) {
        const inspected = (side === 'engine' ? await diff.engineOnly('GET', `/tasks/${task.ID}`) : await diff.shoalOnly('GET', `/tasks/${task.ID}`)).body as Running;
        const status = inspected.Status.ContainerStatus;
        expect({ side, id: status?.ContainerID, exitCode: status?.ExitCode }).toEqual({ side, id: expect.stringMatching(/^[0-9a-f]{64}$/), exitCode: 0 });
        // Both sides' containers run on the one engine: it knows each by that id.
        const container = await diff.engineOnly('GET', `/containers/${status!.ContainerID}/json`);
        const found = container.body as Container;
        expect({ side, status: container.status, name: found.Name, running: found.State.Running, pid: found.State.Pid, task: found.Config.Labels['com.docker.swarm.task.id'] }).toEqual({
          side,
          status: 200,
          name: `/${name}.${inspected.Slot}.${task.ID}`,
          running: true,
          pid: status!.PID,
          task: task.ID,
        });
        expect(status!.PID).toBeGreaterThan(0);
      }
    }
  });

  it('the service counts its running tasks the same on both: /services?status=true and docker service ls', async () => {
    const listed = await diff.send('GET', `/services?status=true&filters=${encodeURIComponent(JSON.stringify({ name: [name] }))}`);
    expect(Differential.compare(listed)).toEqual({ status: [], body: [] });
    expect((listed.shoal.body as { ServiceStatus: unknown }[]).map((service) => service.ServiceStatus)).toEqual([{ RunningTasks: 2, DesiredTasks: 2, CompletedTasks: 0 }]);
    const out = await cli(() => ['service', 'ls', '--filter', `name=${name}`, '--format', '{{.Name}} {{.Mode}} {{.Replicas}} {{.Image}} {{.Ports}}']);
    expect({ code: out.shoal.code, stdout: out.shoal.stdout }).toEqual({ code: out.engine.code, stdout: out.engine.stdout });
    expect(out.engine.stdout).toBe(`${name} replicated 2/2 ${IMAGE} \n`);
  });

  describe('docker service ps', () => {
    /** A table's rows as columns, cut where its header's columns start; each cell normalised. */
    const table = (text: string): string[][] => {
      const [header, ...rows] = text.split('\n').filter((line) => line !== '');
      const starts = [...header!.matchAll(/(?:^|\s{2,})(\S+(?: \S+)*)/g)].map((match) => match.index! + match[0].length - match[1]!.length);
      const cut = (line: string): string[] => starts.map((start, i) => line.slice(start, starts[i + 1]).trim());
      return [cut(header!), ...rows.map((row) => cut(row).map(cliLine))].map((cells) => cells.map((cell) => cell.replace(/^[a-z0-9]{12,25}$/, '<id>')));
    };
    for (const [what, args, rows] of [
      ['default', [], 2],
      ['--no-trunc', ['--no-trunc'], 2],
      ['--filter desired-state=running', ['--filter', 'desired-state=running'], 2],
      ['--filter node=<the node>', ['--filter', 'node=NODE'], 2],
      ['--filter desired-state=shutdown', ['--filter', 'desired-state=shutdown'], 0],
    ] as const) {
      it(`${what}: the same columns`, async () => {
        const out = await cli(() => ['service', 'ps', ...args.map((arg) => arg.replace('NODE', hostname)), name]);
        expect(SIDES.map((side) => out[side].code)).toEqual([0, 0]);
        expect(table(out.shoal.stdout)).toEqual(table(out.engine.stdout));
        expect(out.shoal.stderr).toBe(out.engine.stderr);
        expect(table(out.engine.stdout)).toEqual([
          ['ID', 'NAME', 'IMAGE', 'NODE', 'DESIRED STATE', 'CURRENT STATE', 'ERROR', 'PORTS'],
          ...[1, 2].slice(0, rows).map((slot) => ['<id>', `${name}.${slot}`, IMAGE, hostname, 'Running', 'Running <ago>', '', '']),
        ]);
      });
    }
    it('--format {{json .}}: the same fields', async () => {
      const out = await cli(() => ['service', 'ps', '--format', '{{json .}}', name]);
      const rows = (text: string) => text.split('\n').filter(Boolean).map((line) => Object.fromEntries(Object.entries(JSON.parse(line) as Record<string, string>).map(([key, value]) => [key, key === 'ID' ? '<id>' : cliLine(value)])));
      expect(rows(out.shoal.stdout)).toEqual(rows(out.engine.stdout));
      expect(rows(out.engine.stdout).map((row) => [row.Name, row.Node, row.CurrentState])).toEqual([1, 2].map((slot) => [`${name}.${slot}`, hostname, 'Running <ago>']));
    });
  });

  describe('logs', () => {
    /** A log body's frames, each `<stream> <payload normalised>`, in a stable order (two tasks print at once). */
    const frames = (answer: RawExchange): string[] => framesOf(answer.body).map((frame) => `${frame.stream} ${logPayload(frame.payload)}`).sort();
    /** The frames a query gives of `tasks` tasks' output, each `<stream> <payload normalised>`, in order. */
    const expected = (query: string, tasks: number): string[] => {
      const asked = new URLSearchParams(query);
      const on = (key: string): boolean => asked.get(key) === '1';
      const later = Number(asked.get('since') ?? 0) * 1000 > Date.now();
      const lines = PRINTED.filter(([stream]) => !later && on(stream === 1 ? 'stdout' : 'stderr')).slice(asked.get('tail') === '1' ? -1 : 0);
      const prefix = `${on('timestamps') ? '<time> ' : ''}${on('details') ? DETAILS : ''}`;
      return Array.from({ length: tasks }, () => lines.map(([stream, line]) => `${stream} ${prefix}${line}`)).flat().sort();
    };
    const queries = [
      'stdout=1&stderr=1',
      'stdout=1',
      'stderr=1',
      'stdout=1&stderr=1&timestamps=1',
      'stdout=1&stderr=1&details=1',
      'stdout=1&stderr=1&timestamps=1&details=1',
      'stdout=1&stderr=1&details=1&follow=0&since=0&tail=all',
      'stdout=1&stderr=1&tail=1',
      `stdout=1&stderr=1&since=${Math.floor(Date.now() / 1000) + 3600}`,
    ];
    /**
     * Pinned (docs/docker-compatibility.md, logs): Docker 20.10 sends a log stream with no
     * Content-Type, Shoal the raw stream's, as later Docker versions do at API 1.41.
     */
    const contentTypes = (answer: Record<Side, RawExchange>): unknown[] => [answer.engine.headers['content-type'], answer.shoal.headers['content-type']];
    const RAW_STREAM = [undefined, 'application/vnd.docker.raw-stream'];

    it("a service's logs (by id and by name): the same frames on both", async () => {
      for (const ref of [(side: Side) => services[side], () => name]) {
        for (const query of queries) {
          const answer = await logs((side) => `/services/${ref(side)}/logs?${query}`);
          expect({ query, status: [answer.engine.status, answer.shoal.status], frames: frames(answer.shoal) }).toEqual({ query, status: [200, 200], frames: frames(answer.engine) });
          expect({ query, frames: frames(answer.engine), contentTypes: contentTypes(answer) }).toEqual({ query, frames: expected(query, 2), contentTypes: RAW_STREAM });
        }
      }
    });

    it("a running task's logs: the same frames on both", async () => {
      for (const query of queries) {
        const answer = await logs((side) => `/tasks/${tasks[side][0]!.ID}/logs?${query}`);
        expect({ query, status: [answer.engine.status, answer.shoal.status], frames: frames(answer.shoal) }).toEqual({ query, status: [200, 200], frames: frames(answer.engine) });
        expect({ query, frames: frames(answer.engine), contentTypes: contentTypes(answer) }).toEqual({ query, frames: expected(query, 1), contentTypes: RAW_STREAM });
      }
    });

    it("a line's time: the container's, in Docker's form, to the nanosecond on both; on Shoal, exactly the engine's time of its container's line", async () => {
      const answer = await logs((side) => `/services/${services[side]}/logs?stdout=1&stderr=1&timestamps=1`);
      const times = (body: Buffer): string[] => framesOf(body).map((frame) => frame.payload.slice(0, frame.payload.indexOf(' ')));
      for (const side of SIDES) {
        expect({ side, lines: times(answer[side].body).length }).toEqual({ side, lines: 2 * PRINTED.length });
        for (const time of times(answer[side].body)) expect({ side, time }).toEqual({ side, time: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{9}Z$/) });
        // Each a time the task printed at: after the service was created and before now.
        for (const time of times(answer[side].body)) expect(Date.parse(time)).toBeGreaterThan(Date.now() - 5 * 60_000);
        // Finer than a millisecond: six lines all on a whole millisecond would be a time cut short.
        expect({ side, finer: times(answer[side].body).some((time) => !/\.\d{3}000000Z$/.test(time)) }).toEqual({ side, finer: true });
      }
      // Shoal's containers run on the same engine: each of a task's lines, with its time, is the engine's own of its container.
      for (const task of tasks.shoal) {
        const inspected = (await diff.shoalOnly('GET', `/tasks/${task.ID}`)).body as { Status: { ContainerStatus?: { ContainerID: string } } };
        const own = await rawExchange(sockets.engine, 'GET', `/v1.41/containers/${inspected.Status.ContainerStatus!.ContainerID}/logs?stdout=1&stderr=1&timestamps=1`, 20_000);
        const shown = await rawExchange(sockets.shoal, 'GET', `/v1.41/tasks/${task.ID}/logs?stdout=1&stderr=1&timestamps=1`, 20_000);
        const payloads = (body: Buffer): string[] => framesOf(body).map((frame) => `${frame.stream} ${frame.payload}`);
        expect({ task: task.ID, lines: payloads(shown.body) }).toEqual({ task: task.ID, lines: payloads(own.body) });
        expect(payloads(own.body)).toHaveLength(PRINTED.length);
      }
    });

    it('followed (follow=1): what was printed, the same frames on both, and the stream stays open', async () => {
      const [engine, shoalAnswer] = await Promise.all(
        SIDES.map((side) => following(sockets[side], `/v1.41/services/${services[side]}/logs?stdout=1&stderr=1&details=1&follow=1`, 5_000)),
      );
      const followed = (answer: { body: Buffer }): string[] => framesOf(answer.body).map((frame) => `${frame.stream} ${logPayload(frame.payload)}`).sort();
      expect({ status: shoalAnswer!.status, ended: shoalAnswer!.ended, frames: followed(shoalAnswer!) }).toEqual({ status: engine!.status, ended: engine!.ended, frames: followed(engine!) });
      expect({ status: engine!.status, ended: engine!.ended, frames: followed(engine!) }).toEqual({ status: 200, ended: false, frames: expected('stdout=1&stderr=1&details=1', 2) });
    });

    /** What the CLI printed, a line each, normalised, in a stable order. */
    const lines = (text: string): string[] => text.split('\n').filter(Boolean).map(cliLine).sort();
    /** The lines a task printed on `stream`, `tasks` times, as the CLI shows them after its `|` (or alone with --raw). */
    const printedOn = (stream: 1 | 2, tasks: number, tail = false): string[] =>
      Array.from({ length: tasks }, () => PRINTED.slice(tail ? -1 : 0).filter(([on]) => on === stream).map(([, line]) => line.trimEnd())).flat().sort();
    const text = (printed: string[]): string[] => printed.map((line) => line.replace(/^[^|]*\|\s*/, '')).sort();
    /** How each line the CLI prints starts: the task (its id normalised) on the node, then `|`; with --raw, the line alone. */
    const task = (ids = true): string => `${name}\\.[12]${ids ? '\\.<id>' : ''}@${hostname.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} +\\| `;
    for (const [what, args, prefix] of [
      ['default', [], () => `^${task()}`],
      ['--timestamps', ['--timestamps'], () => `^<time> ${task()}`],
      ['--details', ['--details'], () => `^${task()}`],
      ['--raw', ['--raw'], () => '^(one|two|three)'],
      ['--no-task-ids', ['--no-task-ids'], () => `^${task(false)}`],
      ['--no-trunc', ['--no-trunc'], () => `^${task()}`],
      ['--tail 1', ['--tail', '1'], () => `^${task()}`],
      ['--since 1h', ['--since', '1h'], () => `^${task()}`],
    ] as const) {
      it(`docker service logs ${what}: the same lines on both`, async () => {
        const out = await cli(() => ['service', 'logs', ...args, name]);
        expect({ code: out.shoal.code, stdout: lines(out.shoal.stdout), stderr: lines(out.shoal.stderr) }).toEqual({ code: out.engine.code, stdout: lines(out.engine.stdout), stderr: lines(out.engine.stderr) });
        const tail = what === '--tail 1';
        expect({ code: out.engine.code, stdout: text(lines(out.engine.stdout)), stderr: text(lines(out.engine.stderr)) }).toEqual({ code: 0, stdout: printedOn(1, 2, tail), stderr: printedOn(2, 2, tail) });
        for (const line of [...lines(out.engine.stdout), ...lines(out.engine.stderr)]) expect(line).toMatch(new RegExp(prefix()));
      });
    }

    it('docker service logs of a task: the same lines on both', async () => {
      const out = await cli((side) => ['service', 'logs', tasks[side][0]!.ID]);
      expect({ code: out.shoal.code, stdout: lines(out.shoal.stdout), stderr: lines(out.shoal.stderr) }).toEqual({ code: out.engine.code, stdout: lines(out.engine.stdout), stderr: lines(out.engine.stderr) });
      expect({ code: out.engine.code, stdout: text(lines(out.engine.stdout)), stderr: text(lines(out.engine.stderr)) }).toEqual({ code: 0, stdout: printedOn(1, 1), stderr: printedOn(2, 1) });
    });
  });
  describe('a running task stood down: the service scaled to one replica', () => {
    /** What each side showed of slot 2 while it went: [desired state, state]. */
    const seen: Record<Side, string[]> = { engine: [], shoal: [] };

    beforeAll(async () => {
      const current = await diff.sendEach('GET', { engine: `/services/${services.engine}`, shoal: `/services/${services.shoal}` });
      const version = (side: Side): number => (current[side].body as { Version: { Index: number } }).Version.Index;
      const spec = (current.engine.body as { Spec: { Mode: object } }).Spec;
      const scaled = await diff.sendEach(
        'POST',
        { engine: `/services/${services.engine}/update?version=${version('engine')}`, shoal: `/services/${services.shoal}/update?version=${version('shoal')}` },
        { ...spec, Mode: { Replicated: { Replicas: 1 } } },
      );
      expect([scaled.engine.status, scaled.shoal.status]).toEqual([200, 200]);
      for (let attempt = 0; attempt < 300; attempt++) {
        const answer = await tasksOf({ service: [name] });
        for (const side of SIDES) {
          const two = (answer[side].body as Task[]).find((task) => task.Slot === 2);
          const what = two ? `${two.DesiredState} ${two.Status.State}` : 'gone';
          if (seen[side].at(-1) !== what) seen[side].push(what);
        }
        if (SIDES.every((side) => seen[side].at(-1) === 'gone')) break;
        await sleep(100);
      }
    }, 60_000);

    it('slot 2 is desired remove while it stops, then gone, on both (each task reaper removes it once shut down)', () => {
      for (const side of SIDES) {
        expect({ side, last: seen[side].at(-1), before: seen[side].slice(0, -1).every((what) => ['running running', 'remove running', 'remove shutdown'].includes(what)) }).toEqual({ side, last: 'gone', before: true });
        expect({ side, removed: seen[side].some((what) => what.startsWith('remove ')) }).toEqual({ side, removed: true });
      }
    });

    it('the task left lists, inspects and shows in docker service ps and service ls the same on both', async () => {
      const answer = await tasksOf({ service: [name] });
      expect(Differential.compare(answer)).toEqual({ status: [], body: pinnedList(answer.shoal.body) });
      expect((answer.engine.body as Task[]).map((task) => task.Slot)).toEqual([1]);
      const ps = await cli(() => ['service', 'ps', name]);
      const columns = (text: string): string[][] => text.split('\n').filter(Boolean).map((line) => line.split(/\s{2,}/).map((cell) => cliLine(cell.trim()).replace(/^[a-z0-9]{12}$/, '<id>')));
      expect(columns(ps.shoal.stdout)).toEqual(columns(ps.engine.stdout));
      expect(columns(ps.engine.stdout)).toHaveLength(2);
      const ls = await cli(() => ['service', 'ls', '--filter', `name=${name}`, '--format', '{{.Name}} {{.Replicas}}']);
      expect([ls.engine.stdout, ls.shoal.stdout]).toEqual([`${name} 1/1\n`, `${name} 1/1\n`]);
    });

    it("the service's logs show the task left, the same on both", async () => {
      const frames = (answer: RawExchange): string[] => framesOf(answer.body).map((frame) => `${frame.stream} ${logPayload(frame.payload)}`).sort();
      const left = PRINTED.map(([stream, line]) => `${stream} ${DETAILS}${line}`).sort();
      // The engine may still send a removed task's lines a moment after the task is gone from
      // its /tasks (its node's agent has not removed the container yet): until it sends one task's.
      let out = await logs((side) => `/services/${services[side]}/logs?stdout=1&stderr=1&details=1`);
      for (let attempt = 0; attempt < 75 && frames(out.engine).length !== left.length; attempt++) {
        await sleep(200);
        out = await logs((side) => `/services/${services[side]}/logs?stdout=1&stderr=1&details=1`);
      }
      expect(frames(out.shoal)).toEqual(frames(out.engine));
      expect(frames(out.engine)).toEqual(left);
    });
  });
  describe('tasks that end: one that exits 0, one that exits 3, neither restarted', () => {
    const ended = { done: { engine: '', shoal: '' }, failed: { engine: '', shoal: '' } };
    const names = { done: `${run}-done`, failed: `${run}-fail` };
    const scripts = { done: 'echo done; exit 0', failed: 'echo failing >&2; exit 3' };

    beforeAll(async () => {
      for (const kind of ['done', 'failed'] as const) {
        const created = await diff.send('POST', '/services/create', {
          Name: names[kind],
          TaskTemplate: { ContainerSpec: { Image: IMAGE, Command: ['sh', '-c', scripts[kind]] }, RestartPolicy: { Condition: 'none' } },
          Mode: { Replicated: { Replicas: 1 } },
        });
        for (const side of SIDES) ended[kind][side] = created[side].status === 201 ? (created[side].body as { ID: string }).ID : '';
        expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
      }
      // Until each has ended and its orchestrator has stood it down (desired shutdown: it is not restarted).
      const over = (body: unknown, state: string) => Array.isArray(body) && body.length === 1 && (body as Task[])[0]!.Status.State === state && (body as Task[])[0]!.DesiredState === 'shutdown';
      for (let attempt = 0; attempt < 300; attempt++) {
        const [done, failed] = [await tasksOf({ service: [names.done] }), await tasksOf({ service: [names.failed] })];
        if (SIDES.every((side) => over(done[side].body, 'complete') && over(failed[side].body, 'failed'))) break;
        await sleep(200);
      }
    }, 90_000);
    afterAll(async () => {
      for (const kind of ['done', 'failed'] as const) {
        if (ended[kind].engine) await diff.engineOnly('DELETE', `/services/${ended[kind].engine}`);
        if (ended[kind].shoal) await diff.shoalOnly('DELETE', `/services/${ended[kind].shoal}`);
      }
    });

    /**
     * Pinned (docs/docker-compatibility.md, tasks placed and running): Name and Runtime, as
     * above (an ended task's ContainerStatus, its container's id, PID 0 and its exit code,
     * is compared); a RestartPolicy sent without a Delay shows SwarmKit's
     * default 5 s on Shoal, which keeps it in the spec (the engine leaves it out and applies
     * the same default); a failed task's Err says how it ended in Shoal's words.
     */
    const pinnedEnded = (kind: 'done' | 'failed', at: string): string[] => [
      `${at}Name: engine absent, shoal "${names[kind]}.1"`,
      `${at}Spec.RestartPolicy.Delay: engine absent, shoal 5000000000`,
      `${at}Spec.Runtime: engine absent, shoal "container"`,
      ...(kind === 'failed' ? [`${at}Status.Err: engine "task: non-zero exit (3)", shoal "task exited with code 3"`] : []),
    ];

    it('list and inspect the same on both: complete or failed, desired shutdown, the exit code, the message of the step they ended in', async () => {
      for (const [kind, state, message, exitCode] of [
        ['done', 'complete', 'finished', 0],
        ['failed', 'failed', 'started', 3],
      ] as const) {
        const listed = await tasksOf({ service: [names[kind]] });
        expect({ kind, ...Differential.compare(listed) }).toEqual({ kind, status: [], body: pinnedEnded(kind, '[0].') });
        type Ended = { ID: string; DesiredState: string; Status: { State: string; Message: string; ContainerStatus?: { ContainerID: string; PID: number; ExitCode: number } } };
        for (const side of SIDES) {
          const [task] = listed[side].body as Ended[];
          const container = task!.Status.ContainerStatus;
          expect({ kind, side, seen: [task!.DesiredState, task!.Status.State, task!.Status.Message, container?.ExitCode, container?.PID] }).toEqual({ kind, side, seen: ['shutdown', state, message, exitCode, 0] });
          expect({ kind, side, container: container?.ContainerID }).toEqual({ kind, side, container: expect.stringMatching(/^[0-9a-f]{64}$/) });
        }
        const ids = (side: Side): string => (listed[side].body as Ended[])[0]!.ID;
        const inspected = await diff.sendEach('GET', { engine: `/tasks/${ids('engine')}`, shoal: `/tasks/${ids('shoal')}` });
        expect({ kind, ...Differential.compare(inspected) }).toEqual({ kind, status: [], body: pinnedEnded(kind, '') });
        const filtered = await tasksOf({ service: [names[kind]], 'desired-state': ['shutdown'] });
        expect({ kind, counts: SIDES.map((side) => (filtered[side].body as unknown[]).length) }).toEqual({ kind, counts: [1, 1] });
      }
    });

    it('docker service ps shows the same, but for the error in Shoal\'s words (pinned); the logs show what they printed', async () => {
      for (const [kind, current, error] of [
        ['done', 'Complete <ago>', ['', '']],
        ['failed', 'Failed <ago>', ['"task: non-zero exit (3)"', '"task exited with code 3"']],
      ] as const) {
        const ps = await cli(() => ['service', 'ps', '--format', '{{.Name}}|{{.Node}}|{{.DesiredState}}|{{.CurrentState}}|{{.Error}}', names[kind]]);
        const rows = (text: string): string[][] => text.split('\n').filter(Boolean).map((line) => line.split('|').map(cliLine));
        expect({ kind, engine: rows(ps.engine.stdout), shoal: rows(ps.shoal.stdout) }).toEqual({
          kind,
          engine: [[`${names[kind]}.1`, hostname, 'Shutdown', current, error[0]]],
          shoal: [[`${names[kind]}.1`, hostname, 'Shutdown', current, error[1]]],
        });
        const out = await logs((side) => `/services/${ended[kind][side]}/logs?stdout=1&stderr=1&details=1`);
        const frames = (answer: RawExchange): string[] => framesOf(answer.body).map((frame) => `${frame.stream} ${logPayload(frame.payload)}`);
        expect({ kind, engine: frames(out.engine), shoal: frames(out.shoal) }).toEqual({
          kind,
          engine: [kind === 'done' ? `1 ${DETAILS}done\n` : `2 ${DETAILS}failing\n`],
          shoal: [kind === 'done' ? `1 ${DETAILS}done\n` : `2 ${DETAILS}failing\n`],
        });
      }
    });

    it('their service inspects the same, but for the restart delay Shoal shows (pinned); service ls counts no task running', async () => {
      const inspected = await diff.sendEach('GET', { engine: `/services/${ended.done.engine}`, shoal: `/services/${ended.done.shoal}` });
      expect(Differential.compare(inspected)).toEqual({ status: [], body: ['Spec.TaskTemplate.RestartPolicy.Delay: engine absent, shoal 5000000000'] });
      const ls = await cli(() => ['service', 'ls', '--filter', `name=${run}-`, '--format', '{{.Name}} {{.Replicas}}']);
      const sorted = (text: string): string[] => text.split('\n').filter(Boolean).sort();
      expect({ engine: sorted(ls.engine.stdout), shoal: sorted(ls.shoal.stdout) }).toEqual({
        engine: [`${names.done} 0/1`, `${name} 1/1`, `${names.failed} 0/1`].sort(),
        shoal: [`${names.done} 0/1`, `${name} 1/1`, `${names.failed} 0/1`].sort(),
      });
    });
  });
  describe('a task restarted on failure: exits 3, restarted once after 100 ms, then no more', () => {
    const retried: Ids = { engine: '', shoal: '' };
    const retry = `${run}-retry`;
    type Ended = Task & { CreatedAt: string; Status: { State: string; Message: string; Err?: string } };
    /** The service's tasks in the order they were created. */
    const inOrder = async (): Promise<SideBySide> => {
      const answer = await diff.sendEach('GET', {
        engine: `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [retry] }))}`,
        shoal: `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: [retry] }))}`,
      });
      const sorted = (body: unknown): unknown => (Array.isArray(body) ? [...(body as Ended[])].sort((a, b) => Date.parse(a.CreatedAt) - Date.parse(b.CreatedAt)) : body);
      return { engine: { ...answer.engine, body: sorted(answer.engine.body) }, shoal: { ...answer.shoal, body: sorted(answer.shoal.body) } };
    };

    beforeAll(async () => {
      const created = await diff.send('POST', '/services/create', {
        Name: retry,
        TaskTemplate: {
          ContainerSpec: { Image: IMAGE, Command: ['sh', '-c', 'echo again >&2; exit 3'] },
          RestartPolicy: { Condition: 'on-failure', Delay: 100_000_000, MaxAttempts: 1 },
        },
        Mode: { Replicated: { Replicas: 1 } },
      });
      for (const side of SIDES) retried[side] = created[side].status === 201 ? (created[side].body as { ID: string }).ID : '';
      expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
      const over = (body: unknown) => Array.isArray(body) && body.length === 2 && (body as Ended[]).every((task) => task.Status.State === 'failed' && task.DesiredState === 'shutdown');
      for (let attempt = 0; attempt < 300; attempt++) {
        const answer = await inOrder();
        if (SIDES.every((side) => over(answer[side].body))) break;
        await sleep(200);
      }
      // Long enough for a third task, were one to come.
      await sleep(2_000);
    }, 90_000);
    afterAll(async () => {
      if (retried.engine) await diff.engineOnly('DELETE', `/services/${retried.engine}`);
      if (retried.shoal) await diff.shoalOnly('DELETE', `/services/${retried.shoal}`);
    });

    it('both tasks list the same on both, in the order they were created: failed, desired shutdown, the same slot; service ls counts none running', async () => {
      const answer = await inOrder();
      const pinnedFailed = [0, 1].flatMap((i) => [
        `[${i}].Name: engine absent, shoal "${retry}.1"`,
        `[${i}].Spec.Runtime: engine absent, shoal "container"`,
        `[${i}].Status.Err: engine "task: non-zero exit (3)", shoal "task exited with code 3"`,
      ]);
      expect(Differential.compare(answer)).toEqual({ status: [], body: pinnedFailed });
      for (const side of SIDES) {
        const seen = (answer[side].body as Ended[]).map((task) => [task.Slot, task.DesiredState, task.Status.State, task.Status.Message]);
        expect({ side, seen }).toEqual({ side, seen: [1, 1].map((slot) => [slot, 'shutdown', 'failed', 'started']) });
      }
      const ls = await cli(() => ['service', 'ls', '--filter', `name=${retry}`, '--format', '{{.Name}} {{.Replicas}}']);
      expect([ls.engine.stdout, ls.shoal.stdout]).toEqual([`${retry} 0/1\n`, `${retry} 0/1\n`]);
    });

    it('docker service ps shows the task and its history alike (\\_), but for the error in Shoal\'s words (pinned); the logs hold both attempts', async () => {
      const ps = await cli(() => ['service', 'ps', retry]);
      const columns = (text: string): string[][] => text.split('\n').filter(Boolean).map((line) => line.split(/\s{2,}/).map((cell) => cliLine(cell.trim()).replace(/^[a-z0-9]{12}$/, '<id>')));
      const shown = (error: string): string[][] => [
        ['ID', 'NAME', 'IMAGE', 'NODE', 'DESIRED STATE', 'CURRENT STATE', 'ERROR', 'PORTS'],
        ['<id>', `${retry}.1`, IMAGE, hostname, 'Shutdown', 'Failed <ago>', error, ''],
        ['<id>', `\\_ ${retry}.1`, IMAGE, hostname, 'Shutdown', 'Failed <ago>', error, ''],
      ];
      expect({ engine: columns(ps.engine.stdout), shoal: columns(ps.shoal.stdout) }).toEqual({ engine: shown('"task: non-zero exit (3)"'), shoal: shown('"task exited with code 3"') });
      const out = await logs((side) => `/services/${retried[side]}/logs?stdout=1&stderr=1&details=1`);
      const frames = (answer: RawExchange): string[] => framesOf(answer.body).map((frame) => `${frame.stream} ${logPayload(frame.payload)}`);
      expect({ engine: frames(out.engine), shoal: frames(out.shoal) }).toEqual({ engine: Array(2).fill(`2 ${DETAILS}again\n`), shoal: Array(2).fill(`2 ${DETAILS}again\n`) });
    });
  });
  describe('a task rejected: its image is on no registry the engine can reach, not restarted', () => {
    const rejected: Ids = { engine: '', shoal: '' };
    const absent = `${run}-absent`;
    /** A registry on loopback where nothing listens: the pull is refused at once, and reaches nothing off the machine. */
    const ABSENT_IMAGE = '127.0.0.1:9/shoal-test/absent:1';
    type Rejected = Task & { Status: { State: string; Message: string; Err?: string; ContainerStatus?: unknown } };

    beforeAll(async () => {
      const created = await diff.send('POST', '/services/create', {
        Name: absent,
        TaskTemplate: { ContainerSpec: { Image: ABSENT_IMAGE }, RestartPolicy: { Condition: 'none' } },
        Mode: { Replicated: { Replicas: 1 } },
      });
      for (const side of SIDES) rejected[side] = created[side].status === 201 ? (created[side].body as { ID: string }).ID : '';
      expect([created.engine.status, created.shoal.status]).toEqual([201, 201]);
      const over = (body: unknown) => Array.isArray(body) && body.length === 1 && (body as Rejected[])[0]!.Status.State === 'rejected' && (body as Rejected[])[0]!.DesiredState === 'shutdown';
      for (let attempt = 0; attempt < 300; attempt++) {
        const answer = await tasksOf({ service: [absent] });
        if (SIDES.every((side) => over(answer[side].body))) break;
        await sleep(200);
      }
    }, 90_000);
    afterAll(async () => {
      if (rejected.engine) await diff.engineOnly('DELETE', `/services/${rejected.engine}`);
      if (rejected.shoal) await diff.shoalOnly('DELETE', `/services/${rejected.shoal}`);
    });

    /** Pinned (docs/docker-compatibility.md): Name, Runtime and the restart delay, as for the tasks that end above. */
    const pinnedRejected = (at: string): string[] => [
      `${at}Name: engine absent, shoal "${absent}.1"`,
      `${at}Spec.RestartPolicy.Delay: engine absent, shoal 5000000000`,
      `${at}Spec.Runtime: engine absent, shoal "container"`,
    ];

    it("lists and inspects the same on both: rejected while preparing, desired shutdown, the engine's No such image, an empty ContainerStatus", async () => {
      const listed = await tasksOf({ service: [absent] });
      expect(Differential.compare(listed)).toEqual({ status: [], body: pinnedRejected('[0].') });
      for (const side of SIDES) {
        const [task] = listed[side].body as Rejected[];
        expect({ side, seen: [task!.DesiredState, task!.Status.State, task!.Status.Message, task!.Status.Err, task!.Status.ContainerStatus] }).toEqual({
          side,
          seen: ['shutdown', 'rejected', 'preparing', `No such image: ${ABSENT_IMAGE}`, { ContainerID: '', PID: 0, ExitCode: 0 }],
        });
      }
      const ids = (side: Side): string => (listed[side].body as Rejected[])[0]!.ID;
      const inspected = await diff.sendEach('GET', { engine: `/tasks/${ids('engine')}`, shoal: `/tasks/${ids('shoal')}` });
      expect(Differential.compare(inspected)).toEqual({ status: [], body: pinnedRejected('') });
    });

    it('docker service ps shows it the same on both, its error the engine\'s words; service ls counts none running', async () => {
      const ps = await cli(() => ['service', 'ps', '--no-trunc', '--format', '{{.Name}}|{{.Node}}|{{.DesiredState}}|{{.CurrentState}}|{{.Error}}', absent]);
      const rows = (text: string): string[][] => text.split('\n').filter(Boolean).map((line) => line.split('|').map(cliLine));
      const shown = [[`${absent}.1`, hostname, 'Shutdown', 'Rejected <ago>', `"No such image: ${ABSENT_IMAGE}"`]];
      expect({ engine: rows(ps.engine.stdout), shoal: rows(ps.shoal.stdout) }).toEqual({ engine: shown, shoal: shown });
      const ls = await cli(() => ['service', 'ls', '--filter', `name=${absent}`, '--format', '{{.Name}} {{.Replicas}}']);
      expect([ls.engine.stdout, ls.shoal.stdout]).toEqual([`${absent} 0/1\n`, `${absent} 0/1\n`]);
    });
  });
});
