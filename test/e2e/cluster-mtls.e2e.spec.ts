/**
 * Shoal as separate processes on the real broker with a cluster root CA (SHOAL_CA_DIR):
 * the API's join tokens carry the CA's digest, the dispatcher speaks mutual TLS, and two
 * `shoal agent --tls` processes (one node each, tasks as host processes) join by pinning
 * the CA, run a service's tasks, and hand their output to `docker service logs` (the API
 * calls the dispatcher with a manager certificate). A restarted agent is the same node; an
 * agent with a token rotated out is refused; `docker swarm ca --rotate` moves every node to a
 * new root, and `docker swarm ca --rotate --ca-cert --ca-key` to a root the operator made
 * with openssl; no process writes a join token or a key.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { caDigest } from '../../libs/runtime/src/pki/node-certificates';
import { eventually } from '../../libs/testing/src/eventually';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

interface DockerNode {
  readonly ID: string;
  readonly Description: { readonly Hostname: string; readonly TLSInfo: { readonly TrustRoot: string } };
  readonly Status: { readonly State: string };
}
interface DockerTask {
  readonly NodeID?: string;
  readonly Status: { readonly State: string };
}

describe('Shoal on Kafka with mutual TLS between agents and the dispatcher', () => {
  const caDir = join(mkdtempSync(join(tmpdir(), 'shoal-mtls-ca-')), 'ca');
  let deployment: ShoalProcesses;
  let cluster: ShoalCluster;
  const agents: ShoalProcess[] = [];
  const stateDirs = [mkdtempSync(join(tmpdir(), 'shoal-mtls-a-')), mkdtempSync(join(tmpdir(), 'shoal-mtls-b-'))];
  let token: string;
  /** The root key the operator gave for the rotation to a root of their own (PEM). */
  let operatorKey: string | undefined;

  /** The agent process last started for each host index. */
  const latest = new Map<number, ShoalProcess>();
  const agent = (index: number, joinToken = token, stateDir = stateDirs[index]!): ShoalProcess => {
    const process = deployment.cli(['agent', '--tls', '--join-token', joinToken, '--dispatcher', cluster.dispatchers, '--state-dir', stateDir, '--hostname', `tls-${index}`]);
    agents.push(process);
    latest.set(index, process);
    return process;
  };
  const readyNodes = async (): Promise<DockerNode[]> =>
    (await cluster.request<DockerNode[]>('GET', `/nodes?filters=${encodeURIComponent(JSON.stringify({ role: ['worker'] }))}`)).body.filter((n) => n.Status.State === 'ready');

  beforeAll(async () => {
    deployment = ShoalProcesses.onKafka('mtls', { SHOAL_HEALTH_PORT: '0', SHOAL_API_PORT: '0', SHOAL_DISPATCHER_PORT: '0', SHOAL_CA_DIR: caDir });
    cluster = await ShoalCluster.start(deployment);
    token = await cluster.workerToken();
  });
  afterAll(() => deployment?.close());

  it("gives join tokens the root CA's digest, made once in SHOAL_CA_DIR for the API and the dispatcher", () => {
    const ca = new X509Certificate(readFileSync(join(caDir, 'ca.pem')));
    expect(token).toBe(`SWMTKN-1-${caDigest(ca)}-${token.slice(-25)}`);
    expect(readdirSync(caDir).sort()).toEqual(['ca-key.pem', 'ca.pem']);
  });

  it('shows the root CA as Docker does: docker swarm ca prints it, and swarm, info and node inspect carry it in TLSInfo', async () => {
    const pem = readFileSync(join(caDir, 'ca.pem'), 'utf8');
    const shown = await cluster.docker(['swarm', 'ca']);
    expect(shown.code).toBe(0);
    expect(shown.stdout.trim()).toBe(pem.trim());
    const swarm = (await cluster.request<{ TLSInfo: { TrustRoot: string; CertIssuerPublicKey: string } }>('GET', '/swarm')).body.TLSInfo;
    expect(swarm.TrustRoot).toBe(pem);
    expect(Buffer.from(swarm.CertIssuerPublicKey, 'base64')).toEqual(new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' }));
    const info = (await cluster.request<{ Swarm: { Cluster: { TLSInfo: unknown } } }>('GET', '/info')).body.Swarm.Cluster.TLSInfo;
    expect(info).toEqual(swarm);
  });

  it('runs a service on two agents that joined over mutual TLS, and docker service logs reads their output', async () => {
    agent(0);
    agent(1);
    const nodes = await eventually('two TLS nodes ready', async () => {
      const ready = await readyNodes();
      return ready.length === 2 ? ready : undefined;
    }, 90_000);
    expect(nodes.map((n) => n.Description.Hostname).sort()).toEqual(['tls-0', 'tls-1']);
    expect(nodes.every((n) => n.Description.TLSInfo.TrustRoot === readFileSync(join(caDir, 'ca.pem'), 'utf8'))).toBe(true);
    for (const [i, dir] of stateDirs.entries()) {
      const certificate = new X509Certificate(readFileSync(join(dir, 'node-cert.pem')));
      expect(certificate.subject).toContain('OU=swarm-worker');
      expect(nodes.find((n) => n.Description.Hostname === `tls-${i}`)!.ID).toBe(/CN=(\w+)/.exec(certificate.subject)![1]);
    }

    const created = await cluster.docker(['service', 'create', '-d', '--name', 'web', '--replicas', '2', '--replicas-max-per-node', '1', 'busybox', 'sh', '-c', 'echo hello over tls; exec sleep 1000']);
    expect(created.code).toBe(0);
    await eventually('both tasks running, one a node', async () => {
      const { body } = await cluster.request<DockerTask[]>('GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`);
      const running = body.filter((t) => t.Status.State === 'running');
      return running.length === 2 && new Set(running.map((t) => t.NodeID)).size === 2 ? running : undefined;
    }, 90_000);
    const logs = await eventually('both tasks said hello', async () => {
      const ran = await cluster.docker(['service', 'logs', '--raw', 'web']);
      return ran.code === 0 && ran.stdout.split('\n').filter((line) => line === 'hello over tls').length === 2 ? ran : undefined;
    }, 60_000);
    expect(logs.stderr).toBe('');
  });

  it('takes a restarted agent back as the same node, from its state directory', async () => {
    const before = (await readyNodes()).map((n) => n.ID).sort();
    const first = agents[0]!;
    expect(await first.stop()).toBe(0);
    const again = agent(0);
    await again.waitFor(/joined the dispatcher/, 60_000);
    await eventually('the same two nodes ready', async () => {
      const ready = (await readyNodes()).map((n) => n.ID).sort();
      return ready.length === 2 && ready.join() === before.join() ? ready : undefined;
    }, 60_000);
    const { body } = await cluster.request<DockerNode[]>('GET', '/nodes');
    expect(body.filter((n) => n.Description.Hostname === 'tls-0')).toHaveLength(1);
  });

  it('refuses an agent whose join token was rotated out, and it stops saying why', async () => {
    const rotated = await cluster.docker(['swarm', 'join-token', '--rotate', '-q', 'worker']);
    expect(rotated.code).toBe(0);
    const refused = agent(2, token, mkdtempSync(join(tmpdir(), 'shoal-mtls-c-')));
    await eventually('the agent to stop', async () => (refused.running ? undefined : true), 60_000);
    expect(refused.exitCode).not.toBe(0);
    expect(refused.output).toMatch(/refused the join: invalid join token: it is not a current token of this cluster/);
    // The new token works, and carries the same CA's digest.
    const fresh = rotated.stdout.trim();
    expect(fresh.slice(0, 60)).toBe(token.slice(0, 60));
    const joined = agent(2, fresh, mkdtempSync(join(tmpdir(), 'shoal-mtls-d-')));
    await joined.waitFor(/joined the dispatcher/, 60_000);
  });

  it('rotates the root CA with docker swarm ca --rotate: every agent renews onto the new root and trusts it alone, the tokens carry its digest, and an old token pins a root no dispatcher serves', async () => {
    const oldPem = readFileSync(join(caDir, 'ca.pem'), 'utf8');
    const oldToken = await cluster.workerToken();
    const workers = (await readyNodes()).map((n) => n.ID).sort();
    expect(workers).toHaveLength(3);

    // The CLI waits until every node has a certificate of the new root and trusts it (its progress), then prints the root.
    const rotated = await cluster.docker(['swarm', 'ca', '--rotate'], { timeoutMs: 120_000 });
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    const newRoot = new X509Certificate(/-----BEGIN CERTIFICATE-----[\s\S]+-----END CERTIFICATE-----\n?$/.exec(rotated.stdout)![0]);
    expect(newRoot.toString()).not.toBe(new X509Certificate(oldPem).toString());

    interface Swarm {
      readonly TLSInfo: { readonly TrustRoot: string };
      readonly RootRotationInProgress: boolean;
      readonly Spec: { readonly CAConfig: { readonly ForceRotate?: number } };
      readonly JoinTokens: { readonly Worker: string; readonly Manager: string };
    }
    const swarm = (await cluster.request<Swarm>('GET', '/swarm')).body;
    expect(swarm.TLSInfo.TrustRoot).toBe(newRoot.toString());
    expect(swarm.RootRotationInProgress).toBe(false);
    expect(swarm.Spec.CAConfig.ForceRotate).toBe(1);
    for (const kind of [swarm.JoinTokens.Worker, swarm.JoinTokens.Manager]) expect(kind).toMatch(new RegExp(`^SWMTKN-1-${caDigest(newRoot)}-`));

    // Every node reports the new root as its trust, and keeps it, with a certificate the new root signed.
    const { body: nodes } = await cluster.request<DockerNode[]>('GET', '/nodes');
    expect(nodes.every((n) => n.Description.TLSInfo.TrustRoot === newRoot.toString())).toBe(true);
    expect((await readyNodes()).map((n) => n.ID).sort()).toEqual(workers);
    for (const dir of stateDirs) {
      expect(readFileSync(join(dir, 'root-ca.pem'), 'utf8')).toBe(newRoot.toString());
      const certificate = new X509Certificate(readFileSync(join(dir, 'node-cert.pem')));
      expect(certificate.verify(newRoot.publicKey)).toBe(true);
    }
    // Restarted with the token it joined with (the old root's, as an agent's settings keep it), an agent is still the same node: that root was its cluster's.
    const first = nodes.find((n) => n.Description.Hostname === 'tls-0')!.ID;
    expect(await latest.get(0)!.stop()).toBe(0);
    const again = agent(0, token);
    await again.waitFor(/joined the dispatcher/, 60_000);
    expect(again.output).not.toMatch(/joining anew/);
    await eventually('the same three nodes ready', async () => {
      const ready = (await readyNodes()).map((n) => n.ID).sort();
      return ready.join() === workers.join() ? ready : undefined;
    }, 60_000);
    expect(workers).toContain(first);
    // The API calls the dispatcher with a certificate of the new root: the tasks' output still comes.
    const logs = await cluster.docker(['service', 'logs', '--raw', 'web']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('hello over tls');

    // A token of the old root pins it: the node finds another root and goes no further.
    const stale = agent(3, oldToken, mkdtempSync(join(tmpdir(), 'shoal-mtls-e-')));
    await eventually('the agent with a token of the old root to stop', async () => (stale.running ? undefined : true), 60_000);
    expect(stale.output).toMatch(/presented a root CA whose digest is not the join token's/);
    const joined = agent(3, swarm.JoinTokens.Worker, mkdtempSync(join(tmpdir(), 'shoal-mtls-f-')));
    await joined.waitFor(/joined the dispatcher/, 60_000);
  }, 300_000);

  it("rotates to a root of the operator's own with docker swarm ca --rotate --ca-cert --ca-key: every node ends on it, trusting it alone", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoal-mtls-own-'));
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-384', '-nodes', '-keyout', join(dir, 'ca-key.pem'), '-out', join(dir, 'ca.pem'), '-days', '3650', '-subj', '/O=Example Ops/CN=Example Swarm Root'], { stdio: 'ignore' });
    operatorKey = readFileSync(join(dir, 'ca-key.pem'), 'utf8');
    const own = new X509Certificate(readFileSync(join(dir, 'ca.pem')));
    const workers = (await readyNodes()).map((n) => n.ID).sort();

    const rotated = await cluster.docker(['swarm', 'ca', '--rotate', '--ca-cert', join(dir, 'ca.pem'), '--ca-key', join(dir, 'ca-key.pem')], { timeoutMs: 120_000 });
    expect(rotated.stderr).toBe('');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout.trim().endsWith(own.toString().trim())).toBe(true);

    const swarm = (await cluster.request<{ TLSInfo: { TrustRoot: string }; RootRotationInProgress: boolean; Spec: { CAConfig: Record<string, unknown> }; JoinTokens: { Worker: string } }>('GET', '/swarm')).body;
    expect(swarm.TLSInfo.TrustRoot).toBe(own.toString());
    expect(swarm.RootRotationInProgress).toBe(false);
    expect(Object.keys(swarm.Spec.CAConfig).sort()).toEqual(['ForceRotate', 'NodeCertExpiry']);
    expect(swarm.JoinTokens.Worker).toMatch(new RegExp(`^SWMTKN-1-${caDigest(own)}-`));
    const { body: nodes } = await cluster.request<DockerNode[]>('GET', '/nodes');
    expect(nodes.every((n) => n.Description.TLSInfo.TrustRoot === own.toString())).toBe(true);
    expect((await readyNodes()).map((n) => n.ID).sort()).toEqual(workers);
    for (const stateDir of stateDirs) {
      expect(readFileSync(join(stateDir, 'root-ca.pem'), 'utf8')).toBe(own.toString());
      expect(new X509Certificate(readFileSync(join(stateDir, 'node-cert.pem'))).verify(own.publicKey)).toBe(true);
    }
    const logs = await cluster.docker(['service', 'logs', '--raw', 'web']);
    expect(logs.code).toBe(0);
    expect(logs.stdout).toContain('hello over tls');
    // A node joins with a token of the operator's root.
    const joined = agent(4, swarm.JoinTokens.Worker, mkdtempSync(join(tmpdir(), 'shoal-mtls-g-')));
    await joined.waitFor(/joined the dispatcher/, 60_000);
  }, 300_000);

  it('writes no join token and no private key in any process output', async () => {
    const current = await cluster.workerToken();
    const outputs = [cluster.api, ...cluster.components.map((c) => c.process), ...agents].map((p) => p.output).join('\n');
    expect(outputs).toContain('certificate from the dispatcher');
    for (const secret of [token, current, token.slice(-25), current.slice(-25)]) expect(outputs).not.toContain(secret);
    expect(outputs).not.toMatch(/PRIVATE KEY/);
    // Nor the operator's root key, in any form of its body.
    if (operatorKey) expect(outputs).not.toContain(operatorKey.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '').slice(0, 40));
  });
});
