/**
 * Docker conformance of `/events`, side by side: the same story (a config, a secret, an
 * overlay network, a service updated and then everything removed) is played on the test
 * run's engine in swarm mode and on Shoal, then `/events` is asked, between the same two
 * times, with every filter, and the messages compared after the one normaliser
 * (test/conformance/normalise.ts). The engine is shared: only the messages about this
 * story's objects (their names start with its prefix) are compared, on both sides alike.
 */
import { request } from 'node:http';
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { differences } from '../conformance/differences';
import { errorShape, normalise } from '../conformance/normalise';
import { jsonLines, rawExchange } from '../conformance/raw-exchange';
import type { RawExchange } from '../conformance/raw-exchange';
import { conformanceEngine, ensureSwarm, startShoal } from '../conformance/sides';
import type { ShoalSide } from '../conformance/sides';

const IMAGE = 'shoal-test/busybox:latest';
const run = `ev${Date.now().toString(36)}`;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
/** Now as the docker CLI sends a time: Unix seconds with nine digits of fraction. */
const unixNow = (): string => (Date.now() / 1000).toFixed(9);

interface Message {
  readonly Type: string;
  readonly Action: string;
  readonly Actor: { readonly ID: string; readonly Attributes: Record<string, string> };
}
type Ids = { engine: string; shoal: string };

describe('/events at API 1.41, Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalSide | undefined;
  let diff: Differential;
  let sockets: Ids;
  /** The story's window, and a time in its middle (between the service's creation and its update). */
  let since = '';
  let middle = '';
  let until = '';
  const ids: Record<'config' | 'secret' | 'network' | 'service', Ids> = {
    config: { engine: '', shoal: '' },
    secret: { engine: '', shoal: '' },
    network: { engine: '', shoal: '' },
    service: { engine: '', shoal: '' },
  };
  const names = { config: `${run}-conf`, secret: `${run}-sec`, network: `${run}-net`, service: `${run}-web`, published: `${run}-pub` };
  /** Each side's id of the service that publishes a port (its allocation is an update of it). */
  let published: Ids = { engine: '', shoal: '' };

  const created = (answer: SideBySide): Ids => {
    expect([answer.engine.status, answer.shoal.status]).toEqual([201, 201]);
    const idOf = (body: unknown): string => (body as { ID?: string; Id?: string }).ID ?? (body as { Id: string }).Id;
    return { engine: idOf(answer.engine.body), shoal: idOf(answer.shoal.body) };
  };
  const removeBoth = async (kind: keyof typeof ids): Promise<void> => {
    const of = ids[kind];
    if (of.engine) await diff.engineOnly('DELETE', `/${kind}s/${of.engine}`);
    if (of.shoal) await diff.shoalOnly('DELETE', `/${kind}s/${of.shoal}`);
  };

  beforeAll(async () => {
    const engine = conformanceEngine();
    await ensureSwarm(engine);
    shoal = await startShoal('conformance-events');
    diff = new Differential(engine, shoal.socket);
    sockets = { engine, shoal: shoal.socket };

    // Both sides' clocks are this machine's: one window serves both.
    since = unixNow();
    await pause(300);
    ids.config = created(await diff.send('POST', '/configs/create', { Name: names.config, Labels: { [run]: 'conf' }, Data: Buffer.from('x').toString('base64') }));
    ids.secret = created(await diff.send('POST', '/secrets/create', { Name: names.secret, Labels: { [run]: 'sec' }, Data: Buffer.from('s').toString('base64') }));
    ids.network = created(await diff.send('POST', '/networks/create', { Name: names.network, Driver: 'overlay', Labels: { [run]: 'net' } }));
    // Each allocator gives the network its subnet (an update of the network) before the story goes on.
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await diff.sendEach('GET', { engine: `/networks/${ids.network.engine}`, shoal: `/networks/${ids.network.shoal}` });
      const allocated = (body: unknown) => ((body as { IPAM?: { Config?: unknown[] | null } }).IPAM?.Config ?? []).length > 0;
      if (allocated(answer.engine.body) && allocated(answer.shoal.body)) break;
      await pause(100);
    }
    // A service publishing a port: each allocator gives it the port (an update of the service) before the story goes on.
    const port = 30000 + Math.floor(Math.random() * 2700);
    published = created(
      await diff.send('POST', '/services/create', { Name: names.published, TaskTemplate: { ContainerSpec: { Image: IMAGE } }, Mode: { Replicated: { Replicas: 0 } }, EndpointSpec: { Ports: [{ TargetPort: 80, PublishedPort: port }] } }),
    );
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await diff.sendEach('GET', { engine: `/services/${published.engine}`, shoal: `/services/${published.shoal}` });
      const allocated = (body: unknown) => ((body as { Endpoint?: { Ports?: unknown[] } }).Endpoint?.Ports ?? []).length > 0;
      if (allocated(answer.engine.body) && allocated(answer.shoal.body)) break;
      await pause(100);
    }
    const spec = { Name: names.service, Labels: { [run]: 'web' }, TaskTemplate: { ContainerSpec: { Image: IMAGE } }, Mode: { Replicated: { Replicas: 0 } } };
    ids.service = created(await diff.send('POST', '/services/create', spec));
    await pause(600);
    middle = unixNow();
    await pause(600);
    const current = await diff.sendEach('GET', { engine: `/services/${ids.service.engine}`, shoal: `/services/${ids.service.shoal}` });
    const version = (body: unknown): number => (body as { Version: { Index: number } }).Version.Index;
    const updated = await diff.sendEach(
      'POST',
      { engine: `/services/${ids.service.engine}/update?version=${version(current.engine.body)}`, shoal: `/services/${ids.service.shoal}/update?version=${version(current.shoal.body)}` },
      { ...spec, Labels: { [run]: 'web', stage: 'two' }, TaskTemplate: { ContainerSpec: { Image: 'shoal-test/web:latest' } } },
    );
    expect([updated.engine.status, updated.shoal.status]).toEqual([200, 200]);
    // The service that publishes a port, its image changed: its ports stay as they were, no allocation to announce.
    const publishedNow = await diff.sendEach('GET', { engine: `/services/${published.engine}`, shoal: `/services/${published.shoal}` });
    const publishedSpec = (publishedNow.engine.body as { Spec: { TaskTemplate: { ContainerSpec: object } } }).Spec;
    const republished = await diff.sendEach(
      'POST',
      { engine: `/services/${published.engine}/update?version=${version(publishedNow.engine.body)}`, shoal: `/services/${published.shoal}/update?version=${version(publishedNow.shoal.body)}` },
      { ...publishedSpec, TaskTemplate: { ...publishedSpec.TaskTemplate, ContainerSpec: { ...publishedSpec.TaskTemplate.ContainerSpec, Image: 'shoal-test/web:latest' } } },
    );
    expect([republished.engine.status, republished.shoal.status]).toEqual([200, 200]);
    // Time for each allocator to look at it again before it goes.
    await pause(1000);
    await diff.sendEach('DELETE', { engine: `/services/${published.engine}`, shoal: `/services/${published.shoal}` });
    published = { engine: '', shoal: '' };
    for (const kind of ['service', 'network', 'config', 'secret'] as const) {
      const removed = await diff.sendEach('DELETE', { engine: `/${kind}s/${ids[kind].engine}`, shoal: `/${kind}s/${ids[kind].shoal}` });
      expect({ kind, removed: removed.engine.status < 300, same: removed.shoal.status === removed.engine.status }).toEqual({ kind, removed: true, same: true });
      ids[kind] = { engine: '', shoal: '' };
    }
    await pause(300);
    until = unixNow();
  }, 180_000);

  afterAll(async () => {
    // What a failed story left behind, on both sides.
    for (const kind of ['service', 'network', 'config', 'secret'] as const) await removeBoth(kind);
    if (published.engine) await diff.engineOnly('DELETE', `/services/${published.engine}`);
    if (published.shoal) await diff.shoalOnly('DELETE', `/services/${published.shoal}`);
    await shoal?.close();
  });

  /** Each side's ids of the story's objects, kept before they were removed. */
  const storyIds: Record<'config' | 'secret' | 'network' | 'service', Ids> = {
    config: { engine: '', shoal: '' },
    secret: { engine: '', shoal: '' },
    network: { engine: '', shoal: '' },
    service: { engine: '', shoal: '' },
  };
  beforeAll(async () => {
    // The ids, from the story's create messages on each side.
    for (const side of ['engine', 'shoal'] as const) {
      const answer = await rawExchange(sockets[side], 'GET', query({ event: ['create'] }));
      for (const message of story(answer)) storyIds[message.Type as keyof typeof storyIds][side] = message.Actor.ID;
    }
  });

  const query = (filters?: unknown, window: { since: string; until: string } = { since, until }): string =>
    `/v1.41/events?since=${window.since}&until=${window.until}${filters === undefined ? '' : `&filters=${encodeURIComponent(typeof filters === 'string' ? filters : JSON.stringify(filters))}`}`;
  const both = async (path: string): Promise<{ engine: RawExchange; shoal: RawExchange }> => {
    const [engine, shoalAnswer] = await Promise.all([rawExchange(sockets.engine, 'GET', path), rawExchange(sockets.shoal, 'GET', path)]);
    return { engine, shoal: shoalAnswer };
  };
  /** This story's messages (the engine is shared), in the order each side gave them. */
  const story = (answer: RawExchange): Message[] => (jsonLines(answer.body) as Message[]).filter((message) => (message.Actor.Attributes.name ?? '').startsWith(run));
  const compared = async (filters?: unknown, window?: { since: string; until: string }) => {
    const answer = await both(query(filters, window));
    const engine = story(answer.engine);
    const shoalMessages = story(answer.shoal);
    return {
      status: [answer.engine.status, answer.shoal.status],
      contentType: [answer.engine.headers['content-type'], answer.shoal.headers['content-type']],
      differences: differences(normalise(engine), normalise(shoalMessages)),
      seen: shoalMessages.map((message) => `${message.Type} ${message.Action} ${message.Actor.Attributes.name}`),
    };
  };

  const everything = [
    `config create ${run}-conf`,
    `secret create ${run}-sec`,
    `network create ${run}-net`,
    `network update ${run}-net`,
    `service create ${run}-pub`,
    `service update ${run}-pub`,
    `service create ${run}-web`,
    `service update ${run}-web`,
    `service update ${run}-pub`,
    `service remove ${run}-pub`,
    `service remove ${run}-web`,
    `network remove ${run}-net`,
    `config remove ${run}-conf`,
    `secret remove ${run}-sec`,
  ];

  it('without filters: the same messages, in the same order, with the same attributes (a network or a service named and nothing else, its allocation an update; an image change as image.old/new)', async () => {
    const answer = await compared();
    expect(answer).toEqual({ status: [200, 200], contentType: ['application/json', 'application/json'], differences: [], seen: everything });
    const raw = await both(query({ service: [names.service], event: ['update'] }));
    expect(story(raw.shoal).map((message) => message.Actor.Attributes)).toEqual([{ name: names.service, 'image.old': IMAGE, 'image.new': 'shoal-test/web:latest' }]);
  });

  it('each filter (type, event, service, network, config, secret by name or id prefix, label, scope, several at once) selects the same messages', async () => {
    const only = (...wanted: string[]) => everything.filter((line) => wanted.some((prefix) => line.startsWith(prefix)));
    const named = (name: string) => everything.filter((line) => line.endsWith(` ${name}`));
    const cases: [string, unknown, string[]][] = [
      ['type service', { type: { service: true } }, only('service')],
      ['type network (the older list form)', { type: ['network'] }, only('network')],
      ['type config', { type: ['config'] }, only('config')],
      ['type secret', { type: ['secret'] }, only('secret')],
      ['types config and secret', { type: ['config', 'secret'] }, only('config', 'secret')],
      ['type node', { type: ['node'] }, []],
      ['type container (a local type)', { type: ['container'] }, []],
      ['type bogus', { type: ['bogus'] }, []],
      ['event create', { event: ['create'] }, everything.filter((line) => line.split(' ')[1] === 'create')],
      ['events update and remove', { event: ['update', 'remove'] }, everything.filter((line) => ['update', 'remove'].includes(line.split(' ')[1]!))],
      ['type and event', { type: ['network'], event: ['update'] }, [`network update ${run}-net`]],
      ['service by name', { service: [names.service] }, named(names.service)],
      ['service by name prefix', { service: [`${run}-w`] }, named(names.service)],
      ['services by name, two', { service: [names.service, names.published] }, only('service')],
      ['network by name', { network: [names.network] }, only('network')],
      ['config by name', { config: [names.config] }, only('config')],
      ['secret by name', { secret: [names.secret] }, only('secret')],
      ['service and network by name (every filter applies to every message)', { service: [names.service], network: [names.network] }, []],
      ['node by a name none has', { node: [`${run}-none`] }, []],
      ['label key (swarm events carry no labels)', { label: [run] }, []],
      ['label key=value', { label: [`${run}=web`] }, []],
      ['scope swarm', { scope: ['swarm'] }, everything],
      ['scope local', { scope: ['local'] }, []],
      ['an unknown filter key (ignored)', { bogus: ['x'] }, everything],
    ];
    for (const [what, filters, seen] of cases) {
      expect({ what, ...(await compared(filters)) }).toEqual({ what, status: [200, 200], contentType: ['application/json', 'application/json'], differences: [], seen });
    }
    // By each side's own id (a prefix of it), as `docker events --filter service=<id>` sends it.
    for (const kind of ['service', 'network', 'config', 'secret'] as const) {
      const byId = await Promise.all(
        (['engine', 'shoal'] as const).map(async (side) => {
          const answer = await rawExchange(sockets[side], 'GET', query({ [kind]: [storyIds[kind][side].slice(0, 10)] }));
          return normalise(story(answer));
        }),
      );
      expect({ kind, differences: differences(byId[0], byId[1]), count: (byId[1] as unknown[]).length }).toEqual({ kind, differences: [], count: named(names[kind]).length });
    }
  });

  it('since and until: a window from the middle of the story holds the same messages on both', async () => {
    const later = everything.slice(everything.indexOf(`service update ${run}-web`));
    expect(await compared(undefined, { since: middle, until })).toMatchObject({ status: [200, 200], differences: [], seen: later });
    expect(await compared(undefined, { since, until: middle })).toMatchObject({ status: [200, 200], differences: [], seen: everything.slice(0, everything.length - later.length) });
    // Whole seconds, as a client may send them.
    const whole = { since: String(Math.floor(Number(since)) - 1), until: String(Math.ceil(Number(until)) + 1) };
    expect(await compared({ type: ['config'] }, whole)).toMatchObject({ status: [200, 200], differences: [], seen: [`config create ${run}-conf`, `config remove ${run}-conf`] });
  });

  it('since after until is 400 on both, in the same words; a time or filters Docker cannot parse is its 500, Shoal\'s 400', async () => {
    const errorOf = (answer: RawExchange): unknown => JSON.parse(answer.body.toString('utf8')) as unknown;
    const reversed = await both(query(undefined, { since: until, until: since }));
    expect([reversed.engine.status, reversed.shoal.status]).toEqual([400, 400]);
    expect(errorOf(reversed.shoal)).toEqual(errorOf(reversed.engine));
    expect(errorOf(reversed.shoal)).toEqual({ message: `\`since\` time (${until}) cannot be after \`until\` time (${since})` });

    // Pinned (docs/docker-compatibility.md, /events): Docker 20.10 answers these 500, a
    // client's mistake that Shoal answers 400, in the same error shape.
    for (const path of [`/v1.41/events?since=yesterday&until=${until}`, query('notjson'), query({ type: 'service' })]) {
      const answer = await both(path);
      expect({ path, status: [answer.engine.status, answer.shoal.status], shape: differences(errorShape(errorOf(answer.engine)), errorShape(errorOf(answer.shoal))) }).toEqual({ path, status: [500, 400], shape: [] });
    }
    // Pinned: Shoal also reads an RFC 3339 time, which Docker's daemon does not (its CLI turns one into Unix seconds first).
    const rfc = await both(`/v1.41/events?since=${new Date(Number(since) * 1000).toISOString()}&until=${until}`);
    expect([rfc.engine.status, rfc.shoal.status]).toEqual([500, 200]);
    expect(story(rfc.shoal).map((message) => `${message.Type} ${message.Action} ${message.Actor.Attributes.name}`)).toEqual(everything);
  });

  it('without since or until: the stream stays open and carries what happens from then on, the same on both', async () => {
    const name = `${run}-live`;
    /** An open event stream: its status, content type and the lines so far; stop() closes it. */
    const follow = (socket: string) => {
      const seen = { status: 0, contentType: '', text: '' };
      const req = request({ socketPath: socket, method: 'GET', path: `/v1.41/events?filters=${encodeURIComponent(JSON.stringify({ config: [name] }))}`, headers: { Host: 'docker' } }, (res) => {
        seen.status = res.statusCode ?? 0;
        seen.contentType = String(res.headers['content-type']);
        res.on('data', (chunk: Buffer) => (seen.text += chunk.toString('utf8')));
      });
      req.on('error', () => undefined);
      req.end();
      return { seen, lines: () => jsonLines(Buffer.from(seen.text)) as Message[], stop: () => req.destroy() };
    };
    const streams = { engine: follow(sockets.engine), shoal: follow(sockets.shoal) };
    const until = async (count: number): Promise<void> => {
      for (let attempt = 0; attempt < 100 && !(streams.engine.lines().length >= count && streams.shoal.lines().length >= count); attempt++) await pause(100);
    };
    try {
      await pause(500);
      const made = created(await diff.send('POST', '/configs/create', { Name: name, Data: Buffer.from('x').toString('base64') }));
      ids.config = made;
      await until(1);
      await diff.sendEach('DELETE', { engine: `/configs/${made.engine}`, shoal: `/configs/${made.shoal}` });
      ids.config = { engine: '', shoal: '' };
      await until(2);
      expect([streams.engine.seen.status, streams.shoal.seen.status]).toEqual([200, 200]);
      expect([streams.engine.seen.contentType, streams.shoal.seen.contentType]).toEqual(['application/json', 'application/json']);
      expect(differences(normalise(streams.engine.lines()), normalise(streams.shoal.lines()))).toEqual([]);
      expect(streams.shoal.lines().map((message) => `${message.Type} ${message.Action} ${message.Actor.Attributes.name}`)).toEqual([`config create ${name}`, `config remove ${name}`]);
    } finally {
      streams.engine.stop();
      streams.shoal.stop();
    }
  });
});
