/**
 * Docker conformance of API version negotiation, side by side: `/_ping` and `/version` at
 * no version, at /v1.41/ (Debian's engine's own), at /v1.99/ (newer than either speaks)
 * and at /v1.11/ (older than either takes), on the test run's engine in swarm mode and on
 * Shoal. A client negotiates by the `API-Version` header of `/_ping` (the docker CLI sends
 * `HEAD /_ping` first, then speaks the lower of its own version and that one).
 */
import { jsonLines, rawExchange } from '../conformance/raw-exchange';
import type { RawExchange } from '../conformance/raw-exchange';
import { conformanceEngine, ensureSwarm, startShoal } from '../conformance/sides';
import type { ShoalSide } from '../conformance/sides';

type Side = 'engine' | 'shoal';
const SIDES: readonly Side[] = ['engine', 'shoal'];

describe('API version negotiation, Shoal beside a real engine in swarm mode', () => {
  let shoal: ShoalSide | undefined;
  const sockets: Record<Side, string> = { engine: '', shoal: '' };
  /** Each side's own versions, as its `/version` says them. */
  const versions: Record<Side, { ApiVersion: string; MinAPIVersion: string }> = { engine: { ApiVersion: '', MinAPIVersion: '' }, shoal: { ApiVersion: '', MinAPIVersion: '' } };

  beforeAll(async () => {
    sockets.engine = conformanceEngine();
    await ensureSwarm(sockets.engine);
    shoal = await startShoal('conformance-versions');
    sockets.shoal = shoal.socket;
    for (const side of SIDES) {
      const answer = await rawExchange(sockets[side], 'GET', '/version');
      versions[side] = jsonLines(answer.body)[0] as { ApiVersion: string; MinAPIVersion: string };
    }
  }, 120_000);
  afterAll(async () => {
    await shoal?.close();
  });

  const both = async (method: string, path: string): Promise<Record<Side, RawExchange>> => {
    const [engine, shoalAnswer] = await Promise.all(SIDES.map((side) => rawExchange(sockets[side], method, path)));
    return { engine: engine!, shoal: shoalAnswer! };
  };
  const messageOf = (answer: RawExchange): string => {
    const text = answer.body.toString('utf8');
    return String(answer.headers['content-type']).includes('json') ? (JSON.parse(text) as { message: string }).message : text.trim();
  };

  it("each side says its own versions: Docker 20.10 speaks 1.12 to 1.41, Shoal 1.24 to 1.50 (pinned, docs/docker-compatibility.md)", () => {
    expect(versions.engine).toMatchObject({ ApiVersion: '1.41', MinAPIVersion: '1.12' });
    expect(versions.shoal).toMatchObject({ ApiVersion: '1.50', MinAPIVersion: '1.24' });
  });

  it('GET and HEAD /_ping, with no version and at /v1.41/: 200, "OK" in plain text, and the API-Version a client negotiates by on every answer', async () => {
    for (const [method, path] of [['GET', '/_ping'], ['HEAD', '/_ping'], ['GET', '/v1.41/_ping'], ['HEAD', '/v1.41/_ping']] as const) {
      const answer = await both(method, path);
      for (const side of SIDES) {
        const seen = answer[side];
        expect({ side, method, path, status: seen.status, body: seen.body.toString('utf8'), contentType: seen.headers['content-type'], headers: pick(seen) }).toEqual({
          side,
          method,
          path,
          status: 200,
          body: method === 'HEAD' ? '' : 'OK',
          contentType: 'text/plain; charset=utf-8',
          headers: { 'api-version': versions[side].ApiVersion, ostype: 'linux', 'docker-experimental': 'false', 'cache-control': 'no-cache, no-store, must-revalidate', pragma: 'no-cache' },
        });
      }
    }
  });

  it('GET /version with no version and at /v1.41/: 200 JSON, with the API-Version and OSType headers on both', async () => {
    for (const path of ['/version', '/v1.41/version']) {
      const answer = await both('GET', path);
      for (const side of SIDES) {
        const seen = answer[side];
        expect({ side, path, status: seen.status, json: String(seen.headers['content-type']).startsWith('application/json'), version: seen.headers['api-version'], os: seen.headers.ostype }).toEqual({
          side,
          path,
          status: 200,
          json: true,
          version: versions[side].ApiVersion,
          os: 'linux',
        });
      }
    }
  });

  it("at /v1.99/: 400 on both, JSON, Docker's words naming each side's newest version, the API-Version header on the refusal too", async () => {
    for (const path of ['/v1.99/_ping', '/v1.99/version', '/v1.99/services']) {
      const answer = await both('GET', path);
      for (const side of SIDES) {
        const seen = answer[side];
        expect({ side, path, status: seen.status, contentType: seen.headers['content-type'], message: messageOf(seen), version: seen.headers['api-version'] }).toEqual({
          side,
          path,
          status: 400,
          contentType: 'application/json',
          message: `client version 1.99 is too new. Maximum supported API version is ${versions[side].ApiVersion}`,
          version: versions[side].ApiVersion,
        });
      }
    }
  });

  it("at /v1.11/: 400 on both, in Docker's words naming each side's oldest version; Docker 20.10 answers it in plain text, Shoal in its JSON error shape (pinned)", async () => {
    for (const path of ['/v1.11/_ping', '/v1.11/version']) {
      const answer = await both('GET', path);
      for (const side of SIDES) {
        const seen = answer[side];
        expect({ side, path, status: seen.status, message: messageOf(seen), version: seen.headers['api-version'] }).toEqual({
          side,
          path,
          status: 400,
          message: `client version 1.11 is too old. Minimum supported API version is ${versions[side].MinAPIVersion}, please upgrade your client to a newer version`,
          version: versions[side].ApiVersion,
        });
      }
      expect([answer.engine.headers['content-type'], answer.shoal.headers['content-type']]).toEqual(['text/plain; charset=utf-8', 'application/json']);
      expect(JSON.parse(answer.shoal.body.toString('utf8'))).toEqual({ message: messageOf(answer.shoal) });
    }
  });

  it('between the two minimums (/v1.23/): Docker answers, Shoal refuses as too old (pinned: Shoal takes 1.24 and later)', async () => {
    const answer = await both('GET', '/v1.23/_ping');
    expect([answer.engine.status, answer.shoal.status]).toEqual([200, 400]);
    expect(messageOf(answer.shoal)).toBe('client version 1.23 is too old. Minimum supported API version is 1.24, please upgrade your client to a newer version');
  });
});

/** The negotiation headers of an answer that has them (names in lower case, as node gives them). */
const pick = (answer: RawExchange): Record<string, unknown> => {
  const names = ['api-version', 'ostype', 'docker-experimental', 'cache-control', 'pragma'];
  return Object.fromEntries(names.map((name) => [name, answer.headers[name]]));
};
