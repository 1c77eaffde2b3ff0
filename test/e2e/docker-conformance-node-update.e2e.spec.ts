/**
 * Docker conformance of a node's update, and the node events it gives, side by side. The
 * engine is one of this spec's own, in a network namespace of its own
 * (LocalDockerEngine's `ownNetworkNamespace`): an update through Docker 20.10's API changes
 * its node for good, which the run's shared engine must not see. Shoal's node is one of its
 * own, a `shoal agent --executor docker` on that engine, named as the engine's node
 * (test/conformance/cluster-side.ts). Labels set, changed and cleared; availability drain,
 * pause and back to active; a stale version; an unknown availability and role; the only
 * manager asked to become a worker; then `/events` of type node between the same two
 * times; last, a forced leave. Bodies compared after the one normaliser
 * (test/conformance/normalise.ts); what differs on purpose is pinned and explained in
 * docs/docker-compatibility.md.
 */
import { LocalDockerEngine } from '../../libs/testing/src/engine/local-engine';
import { startShoalWithNode } from '../conformance/cluster-side';
import type { ShoalNodeSide } from '../conformance/cluster-side';
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { socketPathOf } from '../conformance/engine-http';
import type { Exchange } from '../conformance/engine-http';
import { normalise } from '../conformance/normalise';
import { jsonLines, rawExchange } from '../conformance/raw-exchange';

type Side = 'engine' | 'shoal';
const SIDES: readonly Side[] = ['engine', 'shoal'];
type NodeSpec = { Labels: Record<string, string>; Role: string; Availability: string; Name?: string };
type InspectedNode = { ID: string; Version: { Index: number }; Spec: NodeSpec };
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Now as the docker CLI sends a time: Unix seconds with nine digits of fraction. */
const unixNow = (): string => (Date.now() / 1000).toFixed(9);

/** An answer as compared exactly: its status and body (an error's words included). */
const seen = (answer: Exchange): { status: number; body: unknown } => ({ status: answer.status, body: answer.body });
const bothSeen = (answer: SideBySide): Record<Side, { status: number; body: unknown }> => ({ engine: seen(answer.engine), shoal: seen(answer.shoal) });
const onBoth = (status: number, body: unknown): Record<Side, { status: number; body: unknown }> => ({ engine: { status, body }, shoal: { status, body } });

describe("a node's update and its events at API 1.41, Shoal's node beside an engine of its own", () => {
  let engine: LocalDockerEngine | undefined;
  let shoal: ShoalNodeSide | undefined;
  let diff: Differential;
  const sockets: Record<Side, string> = { engine: '', shoal: '' };
  /** Each side's node: the engine's only one (its manager), Shoal's agent's. */
  const nodes: Record<Side, string> = { engine: '', shoal: '' };
  /** The window the updates happen in, for /events. */
  let since = '';
  let until = '';

  beforeAll(async () => {
    engine = await LocalDockerEngine.start({ ownNetworkNamespace: true });
    sockets.engine = socketPathOf(engine.host);
    const probe = new Differential(sockets.engine, sockets.engine);
    nodes.engine = ((await probe.engineOnly('GET', '/info')).body as { Swarm: { NodeID: string } }).Swarm.NodeID;
    const hostname = ((await probe.engineOnly('GET', `/nodes/${nodes.engine}`)).body as { Description: { Hostname: string } }).Description.Hostname;
    shoal = await startShoalWithNode('conformance-node-update', { engine: engine.host, hostname });
    nodes.shoal = shoal.nodeId;
    sockets.shoal = shoal.socket;
    diff = new Differential(sockets.engine, sockets.shoal);
    since = unixNow();
    await pause(300);
  }, 180_000);
  afterAll(async () => {
    await shoal?.close();
    await engine?.stop();
  }, 120_000);

  const inspect = async (): Promise<Record<Side, InspectedNode> & { answer: SideBySide }> => {
    const answer = await diff.sendEach('GET', { engine: `/nodes/${nodes.engine}`, shoal: `/nodes/${nodes.shoal}` });
    expect([answer.engine.status, answer.shoal.status]).toEqual([200, 200]);
    return { engine: answer.engine.body as InspectedNode, shoal: answer.shoal.body as InspectedNode, answer };
  };
  /** Each side's node updated with its own spec changed by `change`, at its own version (or `version`). */
  const update = async (change: (spec: NodeSpec) => unknown, version?: (node: InspectedNode) => number): Promise<SideBySide> => {
    const current = await inspect();
    const [engineAnswer, shoalAnswer] = await Promise.all(
      SIDES.map((side) => {
        const node = current[side];
        const path = `/nodes/${nodes[side]}/update?version=${version ? version(node) : node.Version.Index}`;
        return side === 'engine' ? diff.engineOnly('POST', path, change(node.Spec)) : diff.shoalOnly('POST', path, change(node.Spec));
      }),
    );
    return { engine: engineAnswer!, shoal: shoalAnswer! };
  };
  const specs = async (): Promise<Record<Side, NodeSpec>> => {
    const current = await inspect();
    return { engine: current.engine.Spec, shoal: current.shoal.Spec };
  };

  it('labels set, changed and cleared: accepted alike, and each node shows them', async () => {
    for (const labels of [{ zone: 'east' }, { zone: 'west', rack: 'r1' }, {}]) {
      expect({ labels, answers: bothSeen(await update((spec) => ({ ...spec, Labels: labels }))) }).toEqual({ labels, answers: onBoth(200, '') });
      const after = await specs();
      expect({ engine: after.engine.Labels, shoal: after.shoal.Labels }).toEqual({ engine: labels, shoal: labels });
    }
  });

  it('availability drain, pause, then active: accepted alike, and each node shows it', async () => {
    for (const availability of ['drain', 'pause', 'active']) {
      expect({ availability, answers: bothSeen(await update((spec) => ({ ...spec, Availability: availability }))) }).toEqual({ availability, answers: onBoth(200, '') });
      const after = await specs();
      expect({ engine: after.engine.Availability, shoal: after.shoal.Availability }).toEqual({ engine: availability, shoal: availability });
    }
  });

  it("an updated node inspects the same, but for what each node is: the engine's is its manager, Shoal's a worker (pinned)", async () => {
    const current = await inspect();
    expect(Differential.compare(current.answer)).toEqual({
      status: [],
      body: [expect.stringMatching(/^ManagerStatus: engine \{"Leader":true,"Reachability":"reachable","Addr":"127\.0\.0\.1:\d+"\}, shoal absent$/), 'Spec.Role: engine "manager", shoal "worker"'],
    });
  });

  it("after an update, the engine's node is no longer listed as an accepted member, Shoal's still is (pinned: Docker 20.10 stores the spec as sent, without its membership)", async () => {
    const accepted = encodeURIComponent(JSON.stringify({ membership: ['accepted'] }));
    const listed = await diff.send('GET', `/nodes?filters=${accepted}`);
    const ids = (answer: Exchange): string[] => (answer.body as { ID: string }[]).map((node) => node.ID);
    expect({ engine: ids(listed.engine).includes(nodes.engine), shoal: ids(listed.shoal).includes(nodes.shoal) }).toEqual({ engine: false, shoal: true });
    const all = await diff.send('GET', '/nodes');
    expect({ engine: ids(all.engine).includes(nodes.engine), shoal: ids(all.shoal).includes(nodes.shoal) }).toEqual({ engine: true, shoal: true });
  });

  it('the only manager asked to become a worker: refused on both, 400, in the same words (Shoal\'s manager is its control plane)', async () => {
    const managers = await diff.send('GET', `/nodes?filters=${encodeURIComponent(JSON.stringify({ role: ['manager'] }))}`);
    const manager = { engine: (managers.engine.body as InspectedNode[])[0]!, shoal: (managers.shoal.body as InspectedNode[])[0]! };
    expect({ engine: (managers.engine.body as unknown[]).length, shoal: (managers.shoal.body as unknown[]).length, same: manager.engine.ID === nodes.engine }).toEqual({ engine: 1, shoal: 1, same: true });
    const demoted = await diff.sendEach(
      'POST',
      { engine: `/nodes/${manager.engine.ID}/update?version=${manager.engine.Version.Index}`, shoal: `/nodes/${manager.shoal.ID}/update?version=${manager.shoal.Version.Index}` },
      { ...manager.engine.Spec, Role: 'worker' },
    );
    expect(Differential.compare(demoted)).toEqual({ status: [], body: [] });
    const words = (answer: Exchange): string => (answer.body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '');
    expect({ status: demoted.shoal.status, engine: words(demoted.engine), shoal: words(demoted.shoal) }).toEqual({
      status: 400,
      engine: 'attempting to demote the last manager of the swarm',
      shoal: expect.stringMatching(/^attempting to demote the last manager of the swarm/),
    });
  });

  it('a stale version is refused on both (Docker 500, Shoal 409), in the same words', async () => {
    const stale = await update((spec) => ({ ...spec, Labels: { stale: 'yes' } }), (node) => node.Version.Index - 1);
    expect(Differential.compare(stale)).toEqual({ status: ['status: engine 500, shoal 409'], body: [] });
    expect((stale.engine.body as { message: string }).message).toMatch(/update out of sequence/);
    expect((stale.shoal.body as { message: string }).message).toMatch(/update out of sequence/);
    const after = await specs();
    expect({ engine: after.engine.Labels, shoal: after.shoal.Labels }).toEqual({ engine: {}, shoal: {} });
  });

  it('an unknown availability or role is refused on both, 400', async () => {
    for (const change of [{ Availability: 'bogus' }, { Role: 'bogus' }]) {
      const answer = await update((spec) => ({ ...spec, ...change }));
      expect({ change, comparison: Differential.compare(answer), status: answer.shoal.status }).toEqual({ change, comparison: { status: [], body: [] }, status: 400 });
    }
  });

  it('/events of type node between the same two times: the same update messages, in the same order', async () => {
    await pause(300);
    until = unixNow();
    const filters = encodeURIComponent(JSON.stringify({ type: ['node'] }));
    const path = `/v1.41/events?since=${since}&until=${until}&filters=${filters}`;
    const [engineAnswer, shoalAnswer] = await Promise.all(SIDES.map((side) => rawExchange(sockets[side], 'GET', path)));
    const messages = { engine: jsonLines(engineAnswer!.body), shoal: jsonLines(shoalAnswer!.body) };
    expect(normalise(messages.shoal)).toEqual(normalise(messages.engine));
    // Each accepted update, one message naming the node (its hostname, the same on both); an availability's change says from what to what.
    const name = (messages.engine[0] as { Actor: { Attributes: { name: string } } }).Actor.Attributes.name;
    const changed = (old: string, next: string) => ({ name, 'availability.old': old, 'availability.new': next });
    expect(messages.shoal.map((message) => [(message as { Action: string }).Action, (message as { Actor: { Attributes: unknown } }).Actor.Attributes])).toEqual([
      ['update', { name }],
      ['update', { name }],
      ['update', { name }],
      ['update', changed('active', 'drain')],
      ['update', changed('drain', 'pause')],
      ['update', changed('pause', 'active')],
    ]);
  });

  it('swarm leave with force, last: the engine leaves its swarm, Shoal refuses, its state being the log (pinned)', async () => {
    const left = await diff.send('POST', '/swarm/leave?force=true');
    expect(bothSeen(left)).toEqual({
      engine: { status: 200, body: '' },
      shoal: { status: 503, body: { message: "Shoal's control plane is the swarm's manager, and its state is the log, kept for the audit: leaving cannot erase it; stop Shoal instead" } },
    });
    const info = await diff.send('GET', '/info');
    const state = (answer: Exchange): string => (answer.body as { Swarm: { LocalNodeState: string } }).Swarm.LocalNodeState;
    expect({ engine: state(info.engine), shoal: state(info.shoal) }).toEqual({ engine: 'inactive', shoal: 'active' });
  });
});
