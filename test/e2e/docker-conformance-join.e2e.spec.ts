/**
 * Docker conformance of a node joining and leaving a swarm, side by side. The engine side is
 * two engines of this spec's own, each in a network namespace of its own, linked by a veth
 * pair made in those namespaces (LocalDockerEngine's `linkTo`: 10.213.0.1 and 10.213.0.2,
 * on no other network): the first initialises its swarm on its end of the link, the second
 * joins it as a worker (`POST /swarm/join` with the first's worker token). On Shoal's side a
 * `shoal agent --executor docker` on that second engine, named as its node, joins with
 * Shoal's worker token (test/conformance/cluster-side.ts), so both joined nodes describe the
 * same machine and engine. Then, on both: `/nodes`, the joined node's inspect and
 * `docker node ls`; a ready node's removal refused; the node promoted and demoted; the node
 * leaving (the engine: `POST /swarm/leave` on the second engine; Shoal: its agent stopped)
 * until it is down; `docker node rm`; last, `/events` of type node between the same two
 * times. Bodies compared after the one normaliser (test/conformance/normalise.ts); what
 * differs on purpose is pinned and explained in docs/docker-compatibility.md.
 */
import { engineDocker } from '../../libs/testing/src/engine/engine-docker';
import { LocalDockerEngine } from '../../libs/testing/src/engine/local-engine';
import type { NamespaceLink } from '../../libs/testing/src/engine/own-namespace';
import { startShoalCluster } from '../conformance/cluster-side';
import type { JoinedAgent, ShoalCluster } from '../conformance/cluster-side';
import { differences } from '../conformance/differences';
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { socketPathOf } from '../conformance/engine-http';
import type { Exchange } from '../conformance/engine-http';
import { normalise } from '../conformance/normalise';
import { jsonLines, rawExchange } from '../conformance/raw-exchange';

type Side = 'engine' | 'shoal';
const SIDES: readonly Side[] = ['engine', 'shoal'];
type InspectedNode = {
  ID: string;
  Version: { Index: number };
  Spec: { Labels: Record<string, string>; Role: string; Availability: string };
  Description: { Hostname: string; Engine: { EngineVersion: string }; TLSInfo: unknown } & Record<string, unknown>;
  Status: { State: string; Message?: string; Addr: string };
  ManagerStatus?: { Leader?: boolean; Reachability: string; Addr: string };
};
type EventMessage = { Type: string; Action: string; Actor: { ID: string; Attributes: Record<string, string> }; scope: string };
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Now as the docker CLI sends a time: Unix seconds with nine digits of fraction. */
const unixNow = (): string => (Date.now() / 1000).toFixed(9);

/** `docker node ls`'s table: its header, and each row's cells by node id (the id erased, the `*` of the node asked kept). */
const nodeTable = (printed: string): { header: string[]; rows: Map<string, string[]> } => {
  const [header, ...lines] = printed.trimEnd().split('\n');
  const rows = new Map<string, string[]>();
  for (const line of lines) {
    const cells = line.trim().split(/\s{2,}/);
    const id = cells[0]!.split(' ')[0]!;
    rows.set(id, [cells[0]!.replace(id, '<id>'), ...cells.slice(1)]);
  }
  return { header: header!.trim().split(/\s{2,}/), rows };
};

describe('a node joining and leaving at API 1.41: a second engine joining the first, a Shoal agent joining Shoal', () => {
  let manager: LocalDockerEngine | undefined;
  let worker: LocalDockerEngine | undefined;
  let link: NamespaceLink;
  let shoal: ShoalCluster | undefined;
  let agent: JoinedAgent | undefined;
  let diff: Differential;
  const sockets: Record<Side, string> = { engine: '', shoal: '' };
  /** The manager each side answers as: the first engine's node, Shoal's control plane. */
  const managers: Record<Side, string> = { engine: '', shoal: '' };
  /** The node that joins: the second engine's, the Shoal agent's. */
  const joined: Record<Side, string> = { engine: '', shoal: '' };
  /** The machine's hostname: every engine here names its node after it. */
  let hostname = '';
  let since = '';

  beforeAll(async () => {
    const started = await Promise.allSettled([0, 1].map(() => LocalDockerEngine.start({ ownNetworkNamespace: true, swarm: false })));
    [manager, worker] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
    for (const result of started) if (result.status === 'rejected') throw result.reason;
    link = manager!.linkTo(worker!);
    await manager!.initSwarm(link.addresses[0]);
    sockets.engine = socketPathOf(manager!.host);
    shoal = await startShoalCluster('conformance-join');
    sockets.shoal = shoal.socket;
    diff = new Differential(sockets.engine, sockets.shoal);
    const info = await diff.send('GET', '/info');
    for (const side of SIDES) managers[side] = (info[side].body as { Swarm: { NodeID: string } }).Swarm.NodeID;
    hostname = ((await diff.engineOnly('GET', `/nodes/${managers.engine}`)).body as InspectedNode).Description.Hostname;
    since = unixNow();
    await pause(300);
  }, 240_000);
  afterAll(async () => {
    await shoal?.close();
    await Promise.all([worker?.stop(), manager?.stop()]);
  }, 120_000);

  const inspectJoined = async (): Promise<SideBySide> => {
    const answer = await diff.sendEach('GET', { engine: `/nodes/${joined.engine}`, shoal: `/nodes/${joined.shoal}` });
    expect([answer.engine.status, answer.shoal.status]).toEqual([200, 200]);
    return answer;
  };
  const nodeOf = (answer: SideBySide, side: Side): InspectedNode => answer[side].body as InspectedNode;
  /** Until `ready(engine's joined node)` holds (Shoal's follows its log at once; SwarmKit's raft and dispatcher take their time). */
  const untilEngine = async (ready: (node: InspectedNode) => boolean, what: string): Promise<void> => {
    for (let attempt = 0; attempt < 120; attempt++) {
      const answer = await diff.engineOnly('GET', `/nodes/${joined.engine}`);
      if (answer.status === 200 && ready(answer.body as InspectedNode)) return;
      await pause(500);
    }
    throw new Error(`the engine's joined node: ${what} not seen in 60 s`);
  };
  /** `docker node ls` on each side (a failure throws with what the CLI said). */
  const nodeLs = (): Record<Side, ReturnType<typeof nodeTable>> => ({
    engine: nodeTable(engineDocker(`unix://${sockets.engine}`, ['node', 'ls'])),
    shoal: nodeTable(engineDocker(`unix://${sockets.shoal}`, ['node', 'ls'])),
  });
  /** Each side's joined node's row of `docker node ls`, the header and the manager's row as they are (pinned below). */
  const joinedRows = (): Record<Side, string[] | undefined> => {
    const table = nodeLs();
    expect(table.shoal.header).toEqual(table.engine.header);
    return { engine: table.engine.rows.get(joined.engine), shoal: table.shoal.rows.get(joined.shoal) };
  };

  it("joins: the second engine with the first's worker token over the link (200, no body), Shoal's agent with Shoal's", async () => {
    const tokens = await diff.send('GET', '/swarm');
    const token = (tokens.engine.body as { JoinTokens: { Worker: string } }).JoinTokens.Worker;
    const remote = ((await diff.engineOnly('GET', '/info')).body as { Swarm: { RemoteManagers: { Addr: string }[] } }).Swarm.RemoteManagers[0]!.Addr;
    expect(remote).toMatch(new RegExp(`^${link.addresses[0].replace(/\./g, '\\.')}:\\d+$`));
    const workerSocket = socketPathOf(worker!.host);
    const answer = await new Differential(workerSocket, workerSocket).engineOnly('POST', '/swarm/join', {
      ListenAddr: `${link.addresses[1]}:2377`,
      AdvertiseAddr: link.addresses[1],
      RemoteAddrs: [remote],
      JoinToken: token,
    });
    expect({ status: answer.status, body: answer.body }).toEqual({ status: 200, body: '' });
    joined.engine = ((await new Differential(workerSocket, workerSocket).engineOnly('GET', '/info')).body as { Swarm: { NodeID: string } }).Swarm.NodeID;
    agent = await shoal!.join({ engine: worker!.host, hostname });
    joined.shoal = agent.nodeId;
    await untilEngine((node) => node.Status.State === 'ready', 'ready');
    expect({ engine: joined.engine, shoal: joined.shoal }).toEqual({ engine: expect.stringMatching(/^[a-z0-9]{25}$/), shoal: expect.stringMatching(/^[a-z0-9]{25}$/) });
  }, 120_000);

  it('the joined node inspects the same: a ready, active worker with no labels, described as the same machine and engine; each side its own address', async () => {
    const answer = await inspectJoined();
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    const [engine, shoalNode] = [nodeOf(answer, 'engine'), nodeOf(answer, 'shoal')];
    expect({ Spec: shoalNode.Spec, State: shoalNode.Status.State, ManagerStatus: shoalNode.ManagerStatus, Hostname: shoalNode.Description.Hostname }).toEqual({
      Spec: { Labels: {}, Role: 'worker', Availability: 'active' },
      State: 'ready',
      ManagerStatus: undefined,
      Hostname: hostname,
    });
    // Both describe the second engine, to the value (Shoal's agent asks it): all but TLSInfo, the engine's CA (normalise.ts).
    const described = (node: InspectedNode) => ({ ...node.Description, TLSInfo: undefined });
    expect(described(shoalNode)).toEqual(described(engine));
    expect({ engine: engine.Status.Addr, shoal: shoalNode.Status.Addr }).toEqual({ engine: link.addresses[1], shoal: '127.0.0.1' });
  });

  it("/nodes lists the same two nodes: the joined node alike, the manager but for what Shoal's control plane is (pinned)", async () => {
    const listed = await diff.send('GET', '/nodes');
    const lists = { engine: listed.engine.body as InspectedNode[], shoal: listed.shoal.body as InspectedNode[] };
    expect({ engine: lists.engine.map((node) => node.ID).sort(), shoal: lists.shoal.map((node) => node.ID).sort() }).toEqual({
      engine: [managers.engine, joined.engine].sort(),
      shoal: [managers.shoal, joined.shoal].sort(),
    });
    const find = (side: Side, id: string) => normalise(lists[side].find((node) => node.ID === id));
    expect(differences(find('engine', joined.engine), find('shoal', joined.shoal))).toEqual([]);
    expect(differences(find('engine', managers.engine), find('shoal', managers.shoal))).toEqual([
      'Description.Engine.Plugins: engine "<machine>", shoal absent',
      'Description.Resources.MemoryBytes: engine "<machine>", shoal absent',
      'Description.Resources.NanoCPUs: engine "<machine>", shoal absent',
      expect.stringMatching(/^ManagerStatus\.Addr: engine "10\.213\.0\.1:\d+", shoal "127\.0\.0\.1:2377"$/),
      'Spec.Availability: engine "active", shoal "drain"',
    ]);
  });

  it("docker node ls: the same columns, the joined node's row alike; the manager's row is Shoal's control plane (pinned)", async () => {
    const table = nodeLs();
    expect(table.engine.header).toEqual(['ID', 'HOSTNAME', 'STATUS', 'AVAILABILITY', 'MANAGER STATUS', 'ENGINE VERSION']);
    expect(table.shoal.header).toEqual(table.engine.header);
    const engineVersion = ((await diff.engineOnly('GET', '/version')).body as { Version: string }).Version;
    expect({ engine: table.engine.rows.get(joined.engine), shoal: table.shoal.rows.get(joined.shoal) }).toEqual({
      engine: ['<id>', hostname, 'Ready', 'Active', engineVersion],
      shoal: ['<id>', hostname, 'Ready', 'Active', engineVersion],
    });
    const shoalVersion = ((await diff.shoalOnly('GET', `/nodes/${managers.shoal}`)).body as InspectedNode).Description.Engine.EngineVersion;
    expect({ engine: table.engine.rows.get(managers.engine), shoal: table.shoal.rows.get(managers.shoal) }).toEqual({
      engine: ['<id> *', hostname, 'Ready', 'Active', 'Leader', engineVersion],
      shoal: ['<id> *', 'shoal-manager', 'Ready', 'Drain', 'Leader', shoalVersion],
    });
  });

  it('a ready node removed without force is refused on both', async () => {
    const refused = await diff.sendEach('DELETE', { engine: `/nodes/${joined.engine}`, shoal: `/nodes/${joined.shoal}` });
    expect(Differential.compare(refused)).toEqual({ status: [], body: [] });
    const words = (answer: Exchange, id: string): string => (answer.body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '').replace(id, '<id>');
    expect({ status: refused.shoal.status, engine: words(refused.engine, joined.engine), shoal: words(refused.shoal, joined.shoal) }).toEqual({
      status: 400,
      engine: 'node <id> is not down and can\'t be removed',
      shoal: 'node <id> is not down and can\'t be removed',
    });
    await inspectJoined();
  });

  it('promoted, then demoted: accepted alike, the node a reachable manager and a worker again; a promoted node\'s manager address is each side\'s own (pinned)', async () => {
    for (const role of ['manager', 'worker']) {
      const current = await inspectJoined();
      const [engine, shoalNode] = [nodeOf(current, 'engine'), nodeOf(current, 'shoal')];
      const answer = await diff.sendEach(
        'POST',
        { engine: `/nodes/${joined.engine}/update?version=${engine.Version.Index}`, shoal: `/nodes/${joined.shoal}/update?version=${shoalNode.Version.Index}` },
        { ...engine.Spec, Role: role },
      );
      expect({ role, engine: answer.engine.status, shoal: answer.shoal.status, bodies: [answer.engine.body, answer.shoal.body] }).toEqual({ role, engine: 200, shoal: 200, bodies: ['', ''] });
      await untilEngine((node) => (role === 'manager' ? node.ManagerStatus?.Reachability === 'reachable' : node.ManagerStatus === undefined), `${role}`);
      const after = await inspectJoined();
      if (role === 'manager') {
        expect(Differential.compare(after)).toEqual({ status: [], body: [`ManagerStatus.Addr: engine "${link.addresses[1]}:2377", shoal "127.0.0.1"`] });
        expect(nodeOf(after, 'shoal').ManagerStatus).toEqual({ Reachability: 'reachable', Addr: '127.0.0.1' });
        const rows = joinedRows();
        expect(rows.shoal).toEqual(rows.engine);
        expect(rows.shoal).toEqual(['<id>', hostname, 'Ready', 'Active', 'Reachable', expect.any(String)]);
      } else {
        expect(Differential.compare(after)).toEqual({ status: [], body: [] });
        expect(nodeOf(after, 'shoal').ManagerStatus).toBeUndefined();
        const rows = joinedRows();
        expect(rows.shoal).toEqual(rows.engine);
        expect(rows.shoal).toEqual(['<id>', hostname, 'Ready', 'Active', expect.any(String)]);
      }
      expect(nodeOf(after, 'shoal').Spec.Role).toBe(role);
    }
  }, 120_000);

  it('leaves (the second engine leaves its swarm, 200; Shoal\'s agent stops): down alike, "heartbeat failure", and so in docker node ls', async () => {
    const workerSocket = socketPathOf(worker!.host);
    const left = await new Differential(workerSocket, workerSocket).engineOnly('POST', '/swarm/leave');
    expect({ status: left.status, body: left.body }).toEqual({ status: 200, body: '' });
    expect(await agent!.stop()).toBe(0);
    await untilEngine((node) => node.Status.State === 'down', 'down');
    let answer = await inspectJoined();
    for (let attempt = 0; attempt < 120 && nodeOf(answer, 'shoal').Status.State !== 'down'; attempt++) {
      await pause(500);
      answer = await inspectJoined();
    }
    expect(Differential.compare(answer)).toEqual({ status: [], body: [] });
    expect(nodeOf(answer, 'shoal').Status).toEqual({ State: 'down', Message: 'heartbeat failure', Addr: '127.0.0.1' });
    const rows = joinedRows();
    expect(rows.shoal).toEqual(rows.engine);
    expect(rows.shoal).toEqual(['<id>', hostname, 'Down', 'Active', expect.any(String)]);
  }, 120_000);

  it('docker node rm of the node down: removed on both (no --force needed), then not found in the same words', async () => {
    // Exit 0 (engineDocker throws otherwise), printing the id it removed.
    const removed = { engine: engineDocker(`unix://${sockets.engine}`, ['node', 'rm', joined.engine]), shoal: engineDocker(`unix://${sockets.shoal}`, ['node', 'rm', joined.shoal]) };
    expect(removed).toEqual({ engine: `${joined.engine}\n`, shoal: `${joined.shoal}\n` });
    const gone = await diff.sendEach('GET', { engine: `/nodes/${joined.engine}`, shoal: `/nodes/${joined.shoal}` });
    expect({ engine: seenAs(gone.engine, joined.engine), shoal: seenAs(gone.shoal, joined.shoal) }).toEqual({
      engine: { status: 404, message: 'node <id> not found' },
      shoal: { status: 404, message: 'node <id> not found' },
    });
    const listed = await diff.send('GET', '/nodes');
    expect({ engine: (listed.engine.body as InspectedNode[]).map((node) => node.ID), shoal: (listed.shoal.body as InspectedNode[]).map((node) => node.ID) }).toEqual({
      engine: [managers.engine],
      shoal: [managers.shoal],
    });
  });

  it("/events of type node between the same two times: the same role and state changes and remove; the engine's create unnamed, and its further writes, pinned", async () => {
    await pause(300);
    const until = unixNow();
    const path = `/v1.41/events?since=${since}&until=${until}&filters=${encodeURIComponent(JSON.stringify({ type: ['node'] }))}`;
    const [engineAnswer, shoalAnswer] = await Promise.all(SIDES.map((side) => rawExchange(sockets[side], 'GET', path)));
    const messages = { engine: jsonLines(engineAnswer!.body) as EventMessage[], shoal: jsonLines(shoalAnswer!.body) as EventMessage[] };
    // Every message is about the joined node, of type node, scope swarm.
    for (const side of SIDES) {
      expect({ side, about: [...new Set(messages[side].map((message) => `${message.Type} ${message.scope} ${message.Actor.ID}`))] }).toEqual({ side, about: [`node swarm ${joined[side]}`] });
    }
    const changes = (side: Side) => messages[side].filter((message) => message.Action === 'update' && Object.keys(message.Actor.Attributes).some((key) => key !== 'name'));
    const [engineFirst, ...engineChanges] = changes('engine');
    // Pinned: SwarmKit's node is ready after it was unknown; Shoal's node is registered ready.
    expect(engineFirst!.Actor.Attributes).toEqual({ name: hostname, 'state.old': 'unknown', 'state.new': 'ready' });
    expect(normalise(changes('shoal'))).toEqual(normalise(engineChanges));
    expect(changes('shoal').map((message) => message.Actor.Attributes)).toEqual([
      { name: hostname, 'role.old': 'worker', 'role.new': 'manager' },
      { name: hostname, 'role.old': 'manager', 'role.new': 'worker' },
      { name: hostname, 'state.old': 'ready', 'state.new': 'down' },
    ]);
    const last = { engine: messages.engine.at(-1)!, shoal: messages.shoal.at(-1)! };
    expect(normalise(last.shoal)).toEqual(normalise(last.engine));
    expect(last.shoal).toMatchObject({ Action: 'remove', Actor: { Attributes: { name: hostname } } });
    // Pinned: the create, SwarmKit's as its CA makes the node (not yet described), Shoal's as its agent registers it.
    expect({ engine: messages.engine[0]!.Action, shoal: messages.shoal[0]!.Action }).toEqual({ engine: 'create', shoal: 'create' });
    expect({ engine: messages.engine[0]!.Actor.Attributes, shoal: messages.shoal[0]!.Actor.Attributes }).toEqual({ engine: { name: '' }, shoal: { name: hostname, role: 'worker' } });
    // Pinned: every other write of SwarmKit's node object is an update naming no change; Shoal writes none.
    const plain = (side: Side) => messages[side].filter((message) => message.Action === 'update' && Object.keys(message.Actor.Attributes).every((key) => key === 'name')).length;
    expect({ engine: plain('engine') > 0, shoal: plain('shoal') }).toEqual({ engine: true, shoal: 0 });
    expect(messages.shoal.map((message) => message.Action)).toEqual(['create', 'update', 'update', 'update', 'remove']);
  });
});

const seenAs = (answer: Exchange, id: string): { status: number; message: string } => ({ status: answer.status, message: (answer.body as { message: string }).message.replace(id, '<id>') });
