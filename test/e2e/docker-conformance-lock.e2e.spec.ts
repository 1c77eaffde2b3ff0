/**
 * Docker conformance of autolock and unlock, side by side. The swarm is locked (`swarm
 * update` with AutoLockManagers), each side gives its unlock key, and each restarts: a
 * Docker engine of this spec's own, in a network namespace of its own (swarm mode and a
 * restart touch nothing of the run's engine: LocalDockerEngine's `ownNetworkNamespace`),
 * stopped and started again on its data root; and Shoal's API process, stopped and started
 * again on its data dir and log. Then what each answers while locked, to a wrong key, a
 * malformed one, the right one, and to an unlock when not locked; then the key rotated,
 * both restarted again, the old key refused and the new one unlocking; then autolock off.
 * Last, `swarm init` asking for autolock in each way a client can, each on fresh sides.
 * Bodies compared after the one normaliser (test/conformance/normalise.ts), error words
 * exactly; what differs on purpose is pinned and explained in docs/docker-compatibility.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalDockerEngine } from '../../libs/testing/src/engine/local-engine';
import { dockerCli } from '../../libs/testing/src/processes/docker-cli';
import type { DockerCliResult } from '../../libs/testing/src/processes/docker-cli';
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { socketPathOf } from '../conformance/engine-http';
import type { Exchange } from '../conformance/engine-http';
import { jsonLines, rawExchange } from '../conformance/raw-exchange';
import { startShoal } from '../conformance/sides';
import type { RestartableShoalSide } from '../conformance/sides';

type Side = 'engine' | 'shoal';
type Swarm = { Version: { Index: number }; Spec: Record<string, unknown> };
type SwarmInfo = { LocalNodeState: string };

const LOCKED = 'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';
const NOT_LOCKED = 'swarm is not locked';
const INVALID_KEY = 'swarm could not be unlocked: invalid key provided';
/** SwarmKit's words for a key not of its form (ParseHumanReadableKey). */
const MALFORMED_KEY = 'invalid key string';
const ALREADY_A_SWARM = 'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
const NOT_A_MANAGER = 'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';
const LOCKED_LEAVE = 'Swarm is encrypted and locked. Please unlock it first or use `--force` to ignore this message.';
/** An unlock key's form on both: `SWMKEY-1-` and 32 bytes in base64 without padding. */
const KEY_FORM = /^SWMKEY-1-[A-Za-z0-9+/]{43}$/;
/** A key of the right form that neither side made. */
const OTHER_KEY = `SWMKEY-1-${Buffer.alloc(32, 7).toString('base64').replace(/=+$/, '')}`;

/** An answer as compared exactly: its status and body (an error's words included). */
const seen = (answer: Exchange): { status: number; body: unknown } => ({ status: answer.status, body: answer.body });
/** Both sides' answers, exactly. */
const bothSeen = (answer: SideBySide): Record<Side, { status: number; body: unknown }> => ({ engine: seen(answer.engine), shoal: seen(answer.shoal) });
/** The same exact answer on both sides. */
const onBoth = (status: number, body: unknown): Record<Side, { status: number; body: unknown }> => ({ engine: { status, body }, shoal: { status, body } });

/** Each side's unlock key, as `GET /swarm/unlockkey` gives it (both must answer 200). */
const unlockKeysOf = async (diff: Differential): Promise<Record<Side, string>> => {
  const answer = await diff.send('GET', '/swarm/unlockkey');
  expect([answer.engine.status, answer.shoal.status]).toEqual([200, 200]);
  return { engine: (answer.engine.body as { UnlockKey: string }).UnlockKey, shoal: (answer.shoal.body as { UnlockKey: string }).UnlockKey };
};
/** Each side's `/info` Swarm.LocalNodeState. */
const localStatesOf = async (diff: Differential): Promise<Record<Side, string>> => {
  const answer = await diff.send('GET', '/info');
  return { engine: (answer.engine.body as { Swarm: SwarmInfo }).Swarm.LocalNodeState, shoal: (answer.shoal.body as { Swarm: SwarmInfo }).Swarm.LocalNodeState };
};

/** An engine of the test's own in a network namespace of its own, and a Shoal side, started together; each undefined if it did not start (the other is still returned for its afterAll). */
const startSides = async (name: string, swarm: boolean): Promise<{ engine?: LocalDockerEngine; shoal?: RestartableShoalSide; error?: unknown }> => {
  const [started, side] = await Promise.allSettled([LocalDockerEngine.start({ ownNetworkNamespace: true, swarm }), startShoal(name, { init: swarm })]);
  return {
    ...(started.status === 'fulfilled' ? { engine: started.value } : { error: started.reason }),
    ...(side.status === 'fulfilled' ? { shoal: side.value } : { error: side.reason }),
  };
};

describe('autolock and unlock at API 1.41, Shoal beside an engine of its own that restarts', () => {
  let engine: LocalDockerEngine | undefined;
  let shoal: RestartableShoalSide | undefined;
  let diff: Differential;
  /** Each side's unlock key, as it gave it. */
  const keys: Record<Side, string> = { engine: '', shoal: '' };
  const sockets: Record<Side, string> = { engine: '', shoal: '' };
  /** The docker CLI's home, a folder a side. */
  let home = '';

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'shoal-conformance-lock-'));
    const started = await startSides('conformance-lock', true);
    ({ engine, shoal } = started);
    if (!engine || !shoal) throw started.error;
    sockets.engine = socketPathOf(engine.host);
    sockets.shoal = shoal.socket;
    diff = new Differential(sockets.engine, sockets.shoal);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([shoal?.close(), engine?.stop()]);
    if (home) rmSync(home, { recursive: true, force: true });
  }, 120_000);

  const swarms = async (): Promise<Record<Side, Swarm>> => {
    const answer = await diff.send('GET', '/swarm');
    return { engine: answer.engine.body as Swarm, shoal: answer.shoal.body as Swarm };
  };
  /** `swarm update` on each side with its own spec changed by `change`, at its own version. */
  const update = async (query: string, change: (spec: Record<string, unknown>) => Record<string, unknown> = (spec) => spec): Promise<SideBySide> => {
    const current = await swarms();
    const [engineAnswer, shoalAnswer] = await Promise.all([
      diff.engineOnly('POST', `/swarm/update?version=${current.engine.Version.Index}${query}`, change(current.engine.Spec)),
      diff.shoalOnly('POST', `/swarm/update?version=${current.shoal.Version.Index}${query}`, change(current.shoal.Spec)),
    ]);
    return { engine: engineAnswer, shoal: shoalAnswer };
  };
  const autolock = (on: boolean) => (spec: Record<string, unknown>) => ({ ...spec, EncryptionConfig: { AutoLockManagers: on } });
  const unlockKeys = (): Promise<Record<Side, string>> => unlockKeysOf(diff);
  const localStates = (): Promise<Record<Side, string>> => localStatesOf(diff);
  const restartBoth = async (): Promise<void> => {
    await Promise.all([engine!.restart(), shoal!.restartApi()]);
  };
  /** The docker CLI (v28) against each side, `input` its standard input there. */
  const cli = async (args: readonly string[], input?: (side: Side) => string): Promise<Record<Side, DockerCliResult>> => {
    const [engineResult, shoalResult] = await Promise.all(
      (['engine', 'shoal'] as const).map((side) => dockerCli(join(home, side), args, { socket: sockets[side], timeoutMs: 30_000, ...(input ? { input: input(side) } : {}) })),
    );
    return { engine: engineResult!, shoal: shoalResult! };
  };
  /** The same CLI result on both sides. */
  const sameOnBoth = (result: DockerCliResult): Record<Side, DockerCliResult> => ({ engine: result, shoal: result });
  /** Each side's unlock, with the key `keyOf` names for it. */
  const unlock = (keyOf: (side: Side) => string): Promise<SideBySide> =>
    diff.sendEachWith('POST', '/swarm/unlock', { engine: { UnlockKey: keyOf('engine') }, shoal: { UnlockKey: keyOf('shoal') } });

  it('with autolock off: no unlock key on either, an unlock is refused as not locked (whatever the key), and a key rotation changes nothing', async () => {
    expect(bothSeen(await diff.send('GET', '/swarm/unlockkey'))).toEqual(onBoth(200, { UnlockKey: '' }));
    for (const key of [OTHER_KEY, 'not a key', '']) {
      expect({ key, answers: bothSeen(await diff.send('POST', '/swarm/unlock', { UnlockKey: key })) }).toEqual({ key, answers: onBoth(409, { message: NOT_LOCKED }) });
    }
    const rotated = await update('&rotateManagerUnlockKey=true');
    expect(bothSeen(rotated)).toEqual(onBoth(200, ''));
    expect(bothSeen(await diff.send('GET', '/swarm/unlockkey'))).toEqual(onBoth(200, { UnlockKey: '' }));
  });

  it('swarm update --autolock: accepted alike, the spec says so, each gives a key of the same form, and neither is locked until it restarts', async () => {
    const updated = await update('', autolock(true));
    expect(bothSeen(updated)).toEqual(onBoth(200, ''));
    const inspected = await swarms();
    expect({ engine: inspected.engine.Spec.EncryptionConfig, shoal: inspected.shoal.Spec.EncryptionConfig }).toEqual({ engine: { AutoLockManagers: true }, shoal: { AutoLockManagers: true } });
    Object.assign(keys, await unlockKeys());
    expect(keys).toEqual({ engine: expect.stringMatching(KEY_FORM), shoal: expect.stringMatching(KEY_FORM) });
    expect(await localStates()).toEqual({ engine: 'active', shoal: 'active' });
    expect(bothSeen(await diff.send('POST', '/swarm/unlock', { UnlockKey: OTHER_KEY }))).toEqual(onBoth(409, { message: NOT_LOCKED }));
  });

  it('restarted, each is locked: the swarm routes answer 503 in the same words, /info says locked, /_ping and /version answer', async () => {
    await restartBoth();
    const info = await diff.send('GET', '/info');
    const swarmOf = (answer: Exchange): Exchange => ({ ...answer, body: (answer.body as { Swarm: unknown }).Swarm });
    expect(Differential.compare({ engine: swarmOf(info.engine), shoal: swarmOf(info.shoal) })).toEqual({ status: [], body: [] });
    expect(await localStates()).toEqual({ engine: 'locked', shoal: 'locked' });

    const refused: [string, string, unknown?][] = [
      ['GET', '/swarm'],
      ['GET', '/swarm/unlockkey'],
      ['POST', '/swarm/update?version=1', {}],
      ['GET', '/nodes'],
      ['GET', '/nodes/abc'],
      ['GET', '/services'],
      ['GET', '/services/abc'],
      ['POST', '/services/create', { Name: 'web', TaskTemplate: { ContainerSpec: { Image: 'shoal-test/busybox:latest' } } }],
      ['GET', '/tasks'],
      ['GET', '/secrets'],
      ['POST', '/secrets/create', { Name: 'pw', Data: Buffer.from('x').toString('base64') }],
      ['GET', '/configs'],
    ];
    const answers: Record<string, unknown> = {};
    for (const [method, path, body] of refused) answers[`${method} ${path}`] = bothSeen(await diff.send(method, path, body));
    expect(answers).toEqual(Object.fromEntries(refused.map(([method, path]) => [`${method} ${path}`, onBoth(503, { message: LOCKED })])));

    // What is not refused as locked: init and join (the node is in a swarm), leave without force (in words of its own).
    const joinToken = `SWMTKN-1-${'a'.repeat(50)}-${'b'.repeat(25)}`;
    expect({
      init: bothSeen(await diff.send('POST', '/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' })),
      join: bothSeen(await diff.send('POST', '/swarm/join', { RemoteAddrs: ['127.0.0.1:2377'], JoinToken: joinToken })),
      leave: bothSeen(await diff.send('POST', '/swarm/leave')),
    }).toEqual({ init: onBoth(503, { message: ALREADY_A_SWARM }), join: onBoth(503, { message: ALREADY_A_SWARM }), leave: onBoth(503, { message: LOCKED_LEAVE }) });

    const ping = await diff.send('GET', '/_ping');
    expect(bothSeen(ping)).toEqual(onBoth(200, 'OK'));
    const version = await diff.send('GET', '/version');
    expect({ engine: version.engine.status, shoal: version.shoal.status }).toEqual({ engine: 200, shoal: 200 });
    expect({ engine: (version.engine.body as { ApiVersion: string }).ApiVersion, shoal: (version.shoal.body as { ApiVersion: string }).ApiVersion }).toEqual({ engine: '1.41', shoal: '1.50' });
  });

  it("while locked, the engine still answers what is its own (its local networks and events), where Shoal, which has nothing local, answers as locked (pinned)", async () => {
    const networks = await diff.send('GET', '/networks');
    const listed = (networks.engine.body as { Name: string; Scope: string }[]).map((network) => `${network.Name} ${network.Scope}`).sort();
    expect({ engine: { status: networks.engine.status, listed }, shoal: seen(networks.shoal) }).toEqual({
      engine: { status: 200, listed: ['bridge local', 'docker_gwbridge local', 'host local', 'none local'] },
      shoal: { status: 503, body: { message: LOCKED } },
    });
    expect(bothSeen(await diff.send('POST', '/networks/create', { Name: 'locked', Driver: 'overlay' }))).toEqual({
      engine: { status: 500, body: { message: NOT_A_MANAGER } },
      shoal: { status: 503, body: { message: LOCKED } },
    });
    const now = Math.floor(Date.now() / 1000);
    const [engineEvents, shoalEvents] = await Promise.all([rawExchange(sockets.engine, 'GET', `/v1.41/events?since=${now - 60}&until=${now}`), rawExchange(sockets.shoal, 'GET', `/v1.41/events?since=${now - 60}&until=${now}`)]);
    const scopes = jsonLines(engineEvents.body).map((message) => (message as { scope: string }).scope);
    expect({ engine: { status: engineEvents.status, swarm: scopes.filter((scope) => scope === 'swarm') }, shoal: { status: shoalEvents.status, body: JSON.parse(shoalEvents.body.toString('utf8')) as unknown } }).toEqual({
      engine: { status: 200, swarm: [] },
      shoal: { status: 503, body: { message: LOCKED } },
    });
  });

  it('a key of the form that is not the one is 401, a key not of the form 400, in the same words, and each stays locked', async () => {
    const answers: Record<string, unknown> = {};
    const bodies: [string, unknown][] = [
      ['another key', { UnlockKey: OTHER_KEY }],
      // Of the form (`SWMKEY-1-` and base64 without padding), though not 32 bytes: tried, and refused as the wrong key.
      ['a short key', { UnlockKey: 'SWMKEY-1-AAAA' }],
      ['no prefix', { UnlockKey: 'not a key' }],
      ['not base64', { UnlockKey: 'SWMKEY-1-!!!' }],
      ['padded base64', { UnlockKey: `${OTHER_KEY}=` }],
      ['empty', { UnlockKey: '' }],
      ['no key', {}],
    ];
    for (const [what, body] of bodies) answers[what] = bothSeen(await diff.send('POST', '/swarm/unlock', body));
    expect(answers).toEqual({
      'another key': onBoth(401, { message: INVALID_KEY }),
      'a short key': onBoth(401, { message: INVALID_KEY }),
      'no prefix': onBoth(400, { message: MALFORMED_KEY }),
      'not base64': onBoth(400, { message: MALFORMED_KEY }),
      'padded base64': onBoth(400, { message: MALFORMED_KEY }),
      empty: onBoth(400, { message: MALFORMED_KEY }),
      'no key': onBoth(400, { message: MALFORMED_KEY }),
    });
    // A body that is not JSON: 400 on both, in the words of each side's JSON decoder (Go's, Node's), compared by shape as every error's.
    const notJson = await diff.send('POST', '/swarm/unlock', 'nope');
    expect({ comparison: Differential.compare(notJson), status: notJson.shoal.status }).toEqual({ comparison: { status: [], body: [] }, status: 400 });
    expect(await localStates()).toEqual({ engine: 'locked', shoal: 'locked' });
    expect(bothSeen(await diff.send('GET', '/nodes'))).toEqual(onBoth(503, { message: LOCKED }));
  });

  it('the right key unlocks each: the swarm is served again, its key is the one before the restart, and a second unlock is refused as not locked', async () => {
    expect(bothSeen(await unlock((side) => keys[side]))).toEqual(onBoth(200, ''));
    expect(await localStates()).toEqual({ engine: 'active', shoal: 'active' });
    const nodes = await diff.send('GET', '/nodes');
    expect([nodes.engine.status, nodes.shoal.status]).toEqual([200, 200]);
    expect(await unlockKeys()).toEqual(keys);
    expect(bothSeen(await unlock((side) => keys[side]))).toEqual(onBoth(409, { message: NOT_LOCKED }));
  });

  it('swarm unlock-key --rotate: a new key on each; restarted, the old key is refused and the new one unlocks, over the API and with the docker CLI', async () => {
    expect(bothSeen(await update('&rotateManagerUnlockKey=true'))).toEqual(onBoth(200, ''));
    const rotated = await unlockKeys();
    expect(rotated).toEqual({ engine: expect.stringMatching(KEY_FORM), shoal: expect.stringMatching(KEY_FORM) });
    expect({ engine: rotated.engine === keys.engine, shoal: rotated.shoal === keys.shoal }).toEqual({ engine: false, shoal: false });
    await restartBoth();
    expect(await localStates()).toEqual({ engine: 'locked', shoal: 'locked' });
    expect(bothSeen(await unlock((side) => keys[side]))).toEqual(onBoth(401, { message: INVALID_KEY }));
    // The docker CLI prints the same on both: a command refused as locked, the old key refused, the new one unlocking, a second unlock refused by the CLI itself.
    expect(await cli(['node', 'ls'])).toEqual(sameOnBoth({ code: 1, stdout: '', stderr: `Error response from daemon: ${LOCKED}\n` }));
    expect(await cli(['swarm', 'unlock'], (side) => `${keys[side]}\n`)).toEqual(sameOnBoth({ code: 1, stdout: '', stderr: `Error response from daemon: ${INVALID_KEY}\n` }));
    expect(await cli(['swarm', 'unlock'], (side) => `${rotated[side]}\n`)).toEqual(sameOnBoth({ code: 0, stdout: '', stderr: '' }));
    expect(await localStates()).toEqual({ engine: 'active', shoal: 'active' });
    expect(await cli(['swarm', 'unlock'], (side) => `${rotated[side]}\n`)).toEqual(sameOnBoth({ code: 1, stdout: '', stderr: 'Error: swarm is not locked\n' }));
    const printed = await cli(['swarm', 'unlock-key', '-q']);
    expect({ engine: printed.engine.stdout, shoal: printed.shoal.stdout }).toEqual({ engine: `${rotated.engine}\n`, shoal: `${rotated.shoal}\n` });
    Object.assign(keys, rotated);
  });

  it('swarm update --autolock=false: no key on either, and restarted, neither is locked', async () => {
    expect(bothSeen(await update('', autolock(false)))).toEqual(onBoth(200, ''));
    expect(bothSeen(await diff.send('GET', '/swarm/unlockkey'))).toEqual(onBoth(200, { UnlockKey: '' }));
    await restartBoth();
    expect(await localStates()).toEqual({ engine: 'active', shoal: 'active' });
    const nodes = await diff.send('GET', '/nodes');
    expect([nodes.engine.status, nodes.shoal.status]).toEqual([200, 200]);
    expect(bothSeen(await diff.send('POST', '/swarm/unlock', { UnlockKey: keys.engine }))).toEqual(onBoth(409, { message: NOT_LOCKED }));
  });
});

/** How a swarm is initialised with autolock asked for: over the API (the request's flag, the spec's EncryptionConfig) or by the docker CLI. */
interface AutolockInit {
  readonly how: string;
  readonly init: { readonly body: unknown } | { readonly cli: readonly string[] };
  /** Whether the swarm is autolocked after it (Docker's answer, which Shoal's must be). */
  readonly locked: boolean;
}
const ADDRESSES = { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' };
const AUTOLOCK_INITS: readonly AutolockInit[] = [
  // Docker applies the spec to the new swarm after the request's flag: the flag alone turns nothing on.
  { how: "the request's AutoLockManagers alone", init: { body: { ...ADDRESSES, AutoLockManagers: true } }, locked: false },
  { how: "the spec's EncryptionConfig alone", init: { body: { ...ADDRESSES, Spec: { EncryptionConfig: { AutoLockManagers: true } } } }, locked: true },
  { how: 'docker swarm init --autolock (both)', init: { cli: ['swarm', 'init', '--autolock', '--advertise-addr', '127.0.0.1:2377', '--listen-addr', '127.0.0.1:2377'] }, locked: true },
];

describe.each(AUTOLOCK_INITS)('swarm init with autolock asked by $how, at API 1.41, Shoal beside an engine of its own that restarts', ({ how, init, locked }) => {
  let engine: LocalDockerEngine | undefined;
  let shoal: RestartableShoalSide | undefined;
  let diff: Differential;
  let home = '';

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'shoal-conformance-init-lock-'));
    const started = await startSides('conformance-init-lock', false);
    ({ engine, shoal } = started);
    if (!engine || !shoal) throw started.error;
    diff = new Differential(socketPathOf(engine.host), shoal.socket);
  }, 180_000);
  afterAll(async () => {
    await Promise.all([shoal?.close(), engine?.stop()]);
    if (home) rmSync(home, { recursive: true, force: true });
  }, 120_000);

  it(`accepted alike; autolock ${locked ? 'on, a key on each, and restarted, each is locked until its key unlocks it' : 'off on both, no key, and restarted, neither is locked'}`, async () => {
    expect(await localStatesOf(diff)).toEqual({ engine: 'inactive', shoal: 'inactive' });
    if ('body' in init) {
      const answer = await diff.send('POST', '/swarm/init', init.body);
      // Each answers its manager's node id, a JSON string.
      expect({ engine: { status: answer.engine.status, id: answer.engine.body }, shoal: { status: answer.shoal.status, id: answer.shoal.body } }).toEqual({
        engine: { status: 200, id: expect.stringMatching(/^[a-z0-9]{25}$/) },
        shoal: { status: 200, id: expect.stringMatching(/^[a-z0-9]{25}$/) },
      });
    } else {
      const sockets = { engine: socketPathOf(engine!.host), shoal: shoal!.socket };
      const [engineResult, shoalResult] = await Promise.all((['engine', 'shoal'] as const).map((side) => dockerCli(join(home, side), init.cli, { socket: sockets[side], timeoutMs: 30_000 })));
      for (const result of [engineResult!, shoalResult!]) expect({ how, code: result.code, stdout: result.stdout }).toEqual({ how, code: 0, stdout: expect.stringMatching(/^Swarm initialized: current node \([a-z0-9]{25}\) is now a manager\./) });
    }
    const swarm = await diff.send('GET', '/swarm');
    const encryption = (answer: Exchange): unknown => (answer.body as Swarm).Spec.EncryptionConfig;
    expect({ engine: encryption(swarm.engine), shoal: encryption(swarm.shoal) }).toEqual({ engine: { AutoLockManagers: locked }, shoal: { AutoLockManagers: locked } });
    const keys = await unlockKeysOf(diff);
    expect(keys).toEqual(locked ? { engine: expect.stringMatching(KEY_FORM), shoal: expect.stringMatching(KEY_FORM) } : { engine: '', shoal: '' });

    await Promise.all([engine!.restart(), shoal!.restartApi()]);
    if (!locked) {
      expect(await localStatesOf(diff)).toEqual({ engine: 'active', shoal: 'active' });
      return;
    }
    expect(await localStatesOf(diff)).toEqual({ engine: 'locked', shoal: 'locked' });
    expect(bothSeen(await diff.send('GET', '/nodes'))).toEqual(onBoth(503, { message: LOCKED }));
    expect(bothSeen(await diff.sendEachWith('POST', '/swarm/unlock', { engine: { UnlockKey: keys.engine }, shoal: { UnlockKey: keys.shoal } }))).toEqual(onBoth(200, ''));
    expect(await localStatesOf(diff)).toEqual({ engine: 'active', shoal: 'active' });
    expect(await unlockKeysOf(diff)).toEqual(keys);
  });
});
