/**
 * Docker conformance of `/networks`, side by side: create, inspect (by id, name and id
 * prefix, in each `?scope=`), list (every filter) and remove, on the test run's engine in
 * swarm mode and on Shoal, at API 1.41, compared after the one normaliser
 * (test/conformance/normalise.ts). The engine is shared: lists are compared on this run's
 * networks only (their names start with its prefix). Where Shoal differs on purpose, the
 * exact difference is pinned here and explained in docs/docker-compatibility.md.
 */
import { Differential } from '../conformance/differential';
import type { SideBySide } from '../conformance/differential';
import { conformanceEngine, ensureSwarm, startShoal } from '../conformance/sides';
import type { ShoalSide } from '../conformance/sides';

const run = `nw${Date.now().toString(36)}`;
/** A /24 of this run's own, out of both allocators' way (each allocates from 10.0.0.0/8 upwards). */
const octets = [100 + Math.floor(Math.random() * 100), Math.floor(Math.random() * 250)];
const subnet = (third: number): string => `10.${octets[0]}.${(octets[1]! + third) % 256}.0/24`;
const gateway = (third: number): string => `10.${octets[0]}.${(octets[1]! + third) % 256}.1`;

type Ids = { engine: string; shoal: string };
type Listed = { Name: string; Id: string }[];
const words = (answer: { readonly body: unknown }): string => (answer.body as { message: string }).message.replace(/^rpc error: code = \w+ desc = /, '');

describe('/networks at API 1.41, Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalSide | undefined;
  let diff: Differential;
  /** Every network a test made on either side, removed at the end. */
  const made: Ids[] = [];
  const full = {
    Name: `${run}-full`,
    Driver: 'overlay',
    CheckDuplicate: true,
    Internal: true,
    Attachable: true,
    Labels: { [run]: 'full', tier: 'db' },
    IPAM: { Driver: 'default', Config: [{ Subnet: subnet(0), Gateway: gateway(0) }] },
  };
  const plain = { Name: `${run}-plain`, Driver: 'overlay' };
  const ids: Record<string, Ids> = {};

  const keep = (answer: SideBySide): Ids => {
    const idOf = (side: SideBySide['engine']): string => (side.status === 201 ? (side.body as { Id: string }).Id : '');
    const kept = { engine: idOf(answer.engine), shoal: idOf(answer.shoal) };
    if (kept.engine || kept.shoal) made.push(kept);
    return kept;
  };

  beforeAll(async () => {
    const engine = conformanceEngine();
    await ensureSwarm(engine);
    shoal = await startShoal('conformance-networks');
    diff = new Differential(engine, shoal.socket);
  }, 120_000);
  afterAll(async () => {
    for (const kept of made) {
      if (kept.engine) await diff.engineOnly('DELETE', `/networks/${kept.engine}`);
      if (kept.shoal) await diff.shoalOnly('DELETE', `/networks/${kept.shoal}`);
    }
    await shoal?.close();
  });

  /** Until both sides' inspects show an allocated IPAM config (at most 10 s). */
  const allocated = async (of: Ids): Promise<void> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const answer = await diff.sendEach('GET', { engine: `/networks/${of.engine}`, shoal: `/networks/${of.shoal}` });
      const has = (body: unknown) => ((body as { IPAM?: { Config?: unknown[] | null } }).IPAM?.Config ?? []).length > 0;
      if (has(answer.engine.body) && has(answer.shoal.body)) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`network ${JSON.stringify(of)} not allocated on both sides in 10 s`);
  };

  // Pinned, each explained in docs/docker-compatibility.md (/networks): Shoal has no VXLAN
  // ids, it shows EnableIPv4 (API 1.47) at every version, and an empty Containers as {}.
  const pinned = (at = '') => [
    `${at}Containers: engine null, shoal {}`,
    `${at}EnableIPv4: engine absent, shoal true`,
    expect.stringMatching(new RegExp(`^${at.replace(/[[\].]/g, '\\$&')}Options\\.com\\.docker\\.network\\.driver\\.overlay\\.vxlanid_list: engine "\\d+", shoal absent$`)),
  ];

  it('create: a swarm network with a subnet and gateway of its own, internal, attachable, labelled, and one with nothing set, answer 201 on both and inspect the same (Labels null when none were given)', async () => {
    for (const body of [full, plain]) {
      const created = await diff.send('POST', '/networks/create', body);
      ids[body.Name] = keep(created);
      expect({ name: body.Name, ...Differential.compare(created) }).toEqual({ name: body.Name, status: [], body: [] });
      expect(created.shoal.status).toBe(201);
      await allocated(ids[body.Name]!);
      const inspected = await diff.sendEach('GET', { engine: `/networks/${ids[body.Name]!.engine}`, shoal: `/networks/${ids[body.Name]!.shoal}` });
      expect({ name: body.Name, ...Differential.compare(inspected) }).toEqual({ name: body.Name, status: [], body: pinned() });
    }
    const inspected = await diff.send('GET', `/networks/${full.Name}`);
    expect(inspected.shoal.body).toMatchObject({ Scope: 'swarm', Driver: 'overlay', Internal: true, Attachable: true, Ingress: false, Labels: full.Labels, IPAM: { Driver: 'default', Config: [{ Subnet: subnet(0), Gateway: gateway(0) }] } });
  });

  it('inspect by name, id prefix, and in each ?scope=: swarm (or none) finds it by id, name or id prefix; local, global or an unknown scope by id or id prefix only (404 by name), on both', async () => {
    const of = ids[full.Name]!;
    const refs: [string, Ids][] = [
      ['name', { engine: full.Name, shoal: full.Name }],
      ['id', of],
      ['id prefix', { engine: of.engine.slice(0, 8), shoal: of.shoal.slice(0, 8) }],
    ];
    for (const scope of ['', 'swarm', 'local', 'global', 'bogus']) {
      for (const [what, ref] of refs) {
        const query = scope ? `?scope=${scope}` : '';
        const answer = await diff.sendEach('GET', { engine: `/networks/${ref.engine}${query}`, shoal: `/networks/${ref.shoal}${query}` });
        const found = !(what === 'name' && ['local', 'global', 'bogus'].includes(scope));
        expect({ scope, what, statuses: [answer.engine.status, answer.shoal.status], ...Differential.compare(answer) }).toEqual({
          scope,
          what,
          statuses: found ? [200, 200] : [404, 404],
          status: [],
          body: found ? pinned() : [],
        });
        if (!found) expect(words(answer.shoal)).toBe(words(answer.engine));
      }
    }
  });

  it('list: every filter (name, id prefix, label, driver, scope, type, dangling, several at once) finds the same of this run\'s networks on both; an unknown filter is 400 in the same words', async () => {
    const list = async (filters: { engine: object; shoal: object }): Promise<SideBySide> => {
      const answer = await diff.sendEach('GET', {
        engine: `/networks?filters=${encodeURIComponent(JSON.stringify(filters.engine))}`,
        shoal: `/networks?filters=${encodeURIComponent(JSON.stringify(filters.shoal))}`,
      });
      // This run's networks only, in name order (the engine is shared; each lists in its own order).
      const ours = (body: unknown): unknown => (Array.isArray(body) ? (body as Listed).filter((n) => n.Name.startsWith(run)).sort((a, b) => (a.Name < b.Name ? -1 : 1)) : body);
      return { engine: { ...answer.engine, body: ours(answer.engine.body) }, shoal: { ...answer.shoal, body: ours(answer.shoal.body) } };
    };
    const same = (filters: object) => ({ engine: filters, shoal: filters });
    const both = [full.Name, plain.Name];
    const cases: [string, { engine: object; shoal: object }, string[]][] = [
      ['no filter', same({}), both],
      ['name, exactly', same({ name: [full.Name] }), [full.Name]],
      ['name, two', same({ name: [full.Name, plain.Name] }), both],
      ['name, a part of it (a swarm network matches by its whole name)', same({ name: [run] }), []],
      ['id prefix', { engine: { id: [ids[plain.Name]!.engine.slice(0, 10)] }, shoal: { id: [ids[plain.Name]!.shoal.slice(0, 10)] } }, [plain.Name]],
      ['label key', same({ label: [run] }), [full.Name]],
      ['label key=value', same({ label: [`${run}=full`] }), [full.Name]],
      ['label key=value of none', same({ label: [`${run}=none`] }), []],
      ['driver overlay', same({ driver: ['overlay'] }), both],
      ['driver bridge', same({ driver: ['bridge'] }), []],
      ['scope swarm', same({ scope: ['swarm'] }), both],
      ['scope local', same({ scope: ['local'] }), []],
      ['scope global', same({ scope: ['global'] }), []],
      ['scope bogus', same({ scope: ['bogus'] }), []],
      ['type custom', same({ type: ['custom'] }), both],
      ['type builtin', same({ type: ['builtin'] }), []],
      ['dangling true (no service uses them)', same({ dangling: ['true'] }), both],
      ['dangling false', same({ dangling: ['false'] }), []],
      ['label and driver', same({ label: ['tier=db'], driver: ['overlay'] }), [full.Name]],
    ];
    for (const [what, filters, names] of cases) {
      const answer = await list(filters);
      expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: names.flatMap((_, i) => pinned(`[${i}].`)) });
      expect({ what, names: (answer.shoal.body as Listed).map((n) => n.Name) }).toEqual({ what, names });
    }
    const unknown = await list(same({ bogus: ['x'] }));
    expect(Differential.compare(unknown)).toEqual({ status: [], body: [] });
    expect([unknown.shoal.status, words(unknown.shoal)]).toEqual([400, words(unknown.engine)]);
  });

  it('refusals answered alike: a taken name (409), the ingress network again (409), a gateway or an IP range outside the subnet (400), an overlay network in the local scope (403)', async () => {
    const cases: [string, unknown, number, boolean][] = [
      ['a taken name', { Name: full.Name, Driver: 'overlay' }, 409, true],
      ['a second ingress network', { Name: `${run}-ingress`, Driver: 'overlay', Ingress: true }, 409, false],
      ['a gateway outside the subnet', { Name: `${run}-gw`, Driver: 'overlay', IPAM: { Config: [{ Subnet: subnet(1), Gateway: gateway(2) }] } }, 400, false],
      ['an IP range outside the subnet', { Name: `${run}-range`, Driver: 'overlay', IPAM: { Config: [{ Subnet: subnet(1), IPRange: subnet(2) }] } }, 400, false],
      ['the local scope', { Name: `${run}-local`, Driver: 'overlay', Scope: 'local' }, 403, true],
    ];
    for (const [what, body, status, sameWords] of cases) {
      const answer = await diff.send('POST', '/networks/create', body);
      keep(answer);
      expect({ what, ...Differential.compare(answer) }).toEqual({ what, status: [], body: [] });
      expect({ what, status: answer.shoal.status }).toEqual({ what, status });
      if (sameWords) expect({ what, words: words(answer.shoal) }).toEqual({ what, words: words(answer.engine) });
    }
  });

  it('where Shoal differs on purpose (pinned): IPv6, an IP range inside the subnet, driver options and local drivers are refused 400 naming the field; a bad subnet or no name is Docker\'s 500 and Shoal\'s 400; an unknown driver Docker\'s 404; a pre-defined name Docker\'s 409 (its local network exists) and Shoal\'s 403', async () => {
    const cases: [string, unknown, string, RegExp][] = [
      ['IPv6', { Name: `${run}-v6`, Driver: 'overlay', EnableIPv6: true, IPAM: { Config: [{ Subnet: subnet(3) }, { Subnet: 'fd00:5a::/64', Gateway: 'fd00:5a::1' }] } }, 'status: engine 201, shoal 400', /^invalid EnableIPv6: /],
      ['an IP range inside the subnet', { Name: `${run}-iprange`, Driver: 'overlay', IPAM: { Config: [{ Subnet: subnet(4), IPRange: subnet(4).replace('/24', '/25') }] } }, 'status: engine 201, shoal 400', /^invalid IPAM\.Config\[0\]\.IPRange: /],
      ['driver options', { Name: `${run}-opts`, Driver: 'overlay', Options: { [`${run}.opt`]: 'x' } }, 'status: engine 201, shoal 400', /^invalid Options: /],
      ['the bridge driver (a local network)', { Name: `${run}-bridge`, Driver: 'bridge' }, 'status: engine 201, shoal 400', /^invalid Driver: /],
      ['a subnet that is not one', { Name: `${run}-bad`, Driver: 'overlay', IPAM: { Config: [{ Subnet: '10.79.0.0/33' }] } }, 'status: engine 500, shoal 400', /^invalid IPAM\.Config\[0\]\.Subnet: /],
      ['no name', { Driver: 'overlay' }, 'status: engine 500, shoal 400', /^invalid Name: /],
      ['an unknown driver', { Name: `${run}-nodrv`, Driver: 'nosuch' }, 'status: engine 404, shoal 400', /^invalid Driver: /],
      ['a pre-defined name', { Name: 'host', Driver: 'overlay' }, 'status: engine 409, shoal 403', /^host is a pre-defined network and cannot be created$/],
    ];
    for (const [what, body, status, message] of cases) {
      const answer = await diff.send('POST', '/networks/create', body);
      keep(answer);
      expect({ what, status: Differential.compare(answer).status, message: words(answer.shoal) }).toEqual({ what, status: [status], message: expect.stringMatching(message) });
      // A refusal on both is in the same error shape.
      if (answer.engine.status >= 400) expect({ what, body: Differential.compare(answer).body }).toEqual({ what, body: [] });
    }
  });

  it('remove answers 204 on both, then 404 in the same words; the network is gone from inspect and list', async () => {
    const of = ids[plain.Name]!;
    const removed = await diff.sendEach('DELETE', { engine: `/networks/${of.engine}`, shoal: `/networks/${of.shoal}` });
    expect(Differential.compare(removed)).toEqual({ status: [], body: [] });
    expect(removed.shoal.status).toBe(204);
    const again = await diff.sendEach('DELETE', { engine: `/networks/${of.engine}`, shoal: `/networks/${of.shoal}` });
    expect(Differential.compare(again)).toEqual({ status: [], body: [] });
    expect([again.shoal.status, words(again.shoal).replace(of.shoal, '<id>')]).toEqual([404, words(again.engine).replace(of.engine, '<id>')]);
    const inspected = await diff.send('GET', `/networks/${plain.Name}`);
    expect([inspected.engine.status, inspected.shoal.status]).toEqual([404, 404]);
  });
});
