/**
 * Join tokens and the CA's settings through Docker's /swarm: the whole API in this process
 * on an embedded log. The log keeps a token's hash and the token sealed under the cluster
 * key; the API opens it to show it. `--cert-expiry` is kept from log level 5.
 */
import { createHash } from 'node:crypto';
import { LOG_LEVEL } from '@shoal/contracts';
import { startApi } from '../testing/api-harness';
import { TOKENS } from '@shoal/testing';
import type { ApiHarness } from '../testing/api-harness';

interface Swarm {
  readonly Version: { readonly Index: number };
  readonly Spec: { readonly CAConfig: { readonly NodeCertExpiry?: number } };
  readonly JoinTokens: { readonly Worker: string; readonly Manager: string };
}

const HOUR_NS = 3_600 * 1e9;
const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const swarmOf = async (api: ApiHarness): Promise<Swarm> => (await api.request('GET', '/swarm', { socket: true })).body as Swarm;

/** Every byte the log holds, as text. */
const logText = async (api: ApiHarness): Promise<string> => (await api.log.read(0)).map((record) => record.value).join('\n');

/** The records of `type` written from `from` on, parsed. */
const recordsOf = async (api: ApiHarness, type: string, from = 0): Promise<{ v: number; data: Record<string, unknown> }[]> =>
  (await api.log.read(from)).map((record) => JSON.parse(record.value) as { type: string; v: number; data: Record<string, unknown> }).filter((record) => record.type === type);

describe('join tokens on the log', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ initialized: false });
  });
  afterAll(() => api.close());

  it('docker swarm init keeps each token as its hash and sealed, never in the clear; the API shows them opened', async () => {
    expect((await api.request('POST', '/swarm/init', { socket: true, body: {} })).status).toBe(200);
    const { JoinTokens } = await swarmOf(api);
    expect(JoinTokens.Worker).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    expect(JoinTokens.Manager).toMatch(/^SWMTKN-1-[0-9a-z]{50}-[0-9a-z]{25}$/);
    const text = await logText(api);
    for (const token of [JoinTokens.Worker, JoinTokens.Manager]) {
      expect(text).not.toContain(token.split('-')[3]);
    }
    const [init] = await recordsOf(api, 'ClusterInitialized');
    expect(init).toMatchObject({ v: 2, data: { tokens: { worker: { digest: JoinTokens.Worker.split('-')[2], hash: sha256(JoinTokens.Worker), sealed: expect.any(String) } } } });
    expect(init!.data.tokens).toMatchObject({ manager: { hash: sha256(JoinTokens.Manager) } });
  });

  it('docker swarm join-token --rotate writes the new token the same way, and shows the new one', async () => {
    const before = await swarmOf(api);
    const from = await api.log.highWaterMark();
    const rotated = await api.request('POST', `/swarm/update?version=${before.Version.Index}&rotateWorkerToken=true`, { socket: true, body: before.Spec });
    expect(rotated.status).toBe(200);
    const after = await swarmOf(api);
    expect(after.JoinTokens.Worker).not.toBe(before.JoinTokens.Worker);
    expect(after.JoinTokens.Manager).toBe(before.JoinTokens.Manager);
    expect(await logText(api)).not.toContain(after.JoinTokens.Worker.split('-')[3]);
    const records = await recordsOf(api, 'JoinTokensRotated', from);
    expect(records).toEqual([{ ...records[0], v: 2, data: { worker: { digest: expect.any(String), hash: sha256(after.JoinTokens.Worker), sealed: expect.any(String) } } }]);
  });
});

describe('join tokens on a log below level 5', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ logLevel: 4 });
  });
  afterAll(() => api.close());

  it('still rotates, writing the token in the clear as the builds before level 5 did, so their readers read it', async () => {
    const before = await swarmOf(api);
    expect(before.JoinTokens).toEqual({ Worker: TOKENS.worker, Manager: TOKENS.manager });
    const from = await api.log.highWaterMark();
    expect((await api.request('POST', `/swarm/update?version=${before.Version.Index}&rotateManagerToken=true`, { socket: true, body: before.Spec })).status).toBe(200);
    const after = await swarmOf(api);
    expect(after.JoinTokens.Manager).not.toBe(TOKENS.manager);
    expect(await recordsOf(api, 'JoinTokensRotated', from)).toEqual([expect.objectContaining({ v: 1, data: { manager: after.JoinTokens.Manager } })]);
  });

  it('refuses --cert-expiry until the log is at level 5, naming the level, and writes nothing', async () => {
    const swarm = await swarmOf(api);
    const before = await api.log.highWaterMark();
    const res = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, CAConfig: { NodeCertExpiry: 2 * HOUR_NS } } });
    expect(res.status).toBe(400);
    expect((res.body as { message: string }).message).toMatch(/^CAConfig.NodeCertExpiry: the CA's settings need log level 5 and the log is at level 4: raise it/);
    expect((await swarmOf(api)).Spec.CAConfig).toEqual({ NodeCertExpiry: 2160 * HOUR_NS });
    expect(await api.log.highWaterMark()).toBe(before);
  });
});

describe('--cert-expiry', () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi({ logLevel: LOG_LEVEL });
  });
  afterAll(() => api.close());

  it('keeps a node certificate expiry and shows it in nanoseconds, as docker swarm update --cert-expiry 2h sends it', async () => {
    const swarm = await swarmOf(api);
    expect(swarm.Spec.CAConfig).toEqual({ NodeCertExpiry: 2160 * HOUR_NS });
    const res = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, CAConfig: { NodeCertExpiry: 2 * HOUR_NS } } });
    expect(res.status).toBe(200);
    expect((await swarmOf(api)).Spec.CAConfig).toEqual({ NodeCertExpiry: 2 * HOUR_NS });
  });

  it("refuses under an hour with SwarmKit's words, naming the field, and keeps what was there", async () => {
    const swarm = await swarmOf(api);
    const before = await api.log.highWaterMark();
    const res = await api.request('POST', `/swarm/update?version=${swarm.Version.Index}`, { socket: true, body: { ...swarm.Spec, CAConfig: { NodeCertExpiry: 30 * 60 * 1e9 } } });
    expect(res).toMatchObject({ status: 400, body: { message: 'invalid CAConfig.NodeCertExpiry: minimum certificate expiry time is: 1h0m0s' } });
    expect(await api.log.highWaterMark()).toBe(before);
    expect((await swarmOf(api)).Spec.CAConfig).toEqual({ NodeCertExpiry: 2 * HOUR_NS });
  });
});
