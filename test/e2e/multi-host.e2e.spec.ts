/**
 * Shoal across three hosts on one machine (network namespaces and veth links of the test's
 * own, libs/testing/src/processes/hosts-network.ts): on the managers' host a broker that takes
 * only SASL_SSL from Shoal (a client certificate and SCRAM-SHA-512) and every control-plane
 * process, with the cluster's root CA; one `shoal agent --tls` on each of two other hosts,
 * each reaching the dispatcher only through its own link, over mutual TLS. A service converges across both; a host's link is cut and its node goes down, its task
 * moving to the other host; the link comes back and the agent rejoins by itself as the same
 * node; an agent presenting a join token rotated out is refused.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { X509Certificate } from 'node:crypto';
import { SecureKafkaBroker } from '../../infra/kafka/secure-broker';
import { eventually } from '../../libs/testing/src/eventually';
import { dockerApi } from '../../libs/testing/src/processes/docker-api';
import { dockerCli } from '../../libs/testing/src/processes/docker-cli';
import { HostsNetwork } from '../../libs/testing/src/processes/hosts-network';
import type { AgentHost } from '../../libs/testing/src/processes/hosts-network';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';
import type { ShoalProcess } from '../../libs/testing/src/processes/spawn-shoal';

interface DockerNode {
  readonly ID: string;
  readonly Description: { readonly Hostname: string };
  readonly Status: { readonly State: string; readonly Addr?: string };
}
interface DockerTask {
  readonly NodeID?: string;
  readonly DesiredState: string;
  readonly Status: { readonly State: string };
}

const DISPATCHER_PORT = 2377;
const SCRAM_PASSWORD = 'scram-5c0e7a9d2b4f6e18';
const COMPONENTS = ['allocator', 'orchestrator', 'scheduler', 'reaper', 'dispatcher'] as const;

describe('Shoal across three hosts, agents over mutual TLS through their own links', () => {
  let network: HostsNetwork;
  let broker: SecureKafkaBroker;
  let deployment: ShoalProcesses;
  const agents: Partial<Record<AgentHost, ShoalProcess>> = {};
  const stateDirs: Record<AgentHost, string> = { a: mkdtempSync(join(tmpdir(), 'shoal-host-a-')), b: mkdtempSync(join(tmpdir(), 'shoal-host-b-')) };
  let socket: string;
  let token: string;

  const docker = (args: readonly string[]) => dockerCli(deployment.dataDir, args);
  const nodes = async (): Promise<DockerNode[]> => (await dockerApi<DockerNode[]>(socket, 'GET', '/nodes')).body.filter((n) => n.Description.Hostname.startsWith('host-'));
  const nodeOf = async (host: AgentHost): Promise<DockerNode | undefined> => (await nodes()).find((n) => n.Description.Hostname === `host-${host}`);
  const runningTasks = async (): Promise<DockerTask[]> =>
    (await dockerApi<DockerTask[]>(socket, 'GET', `/tasks?filters=${encodeURIComponent(JSON.stringify({ service: ['web'], 'desired-state': ['running'] }))}`)).body.filter(
      (t) => t.Status.State === 'running',
    );
  const agentOn = (host: AgentHost, joinToken: string, stateDir = stateDirs[host], name = `host-${host}`): ShoalProcess =>
    deployment.cliIn(HostsNetwork.HOSTS[host], ['agent', '--tls', '--join-token', joinToken, '--dispatcher', `${network.managersFrom(host)}:${DISPATCHER_PORT}`, '--state-dir', stateDir, '--hostname', name]);

  beforeAll(async () => {
    network = HostsNetwork.create();
    broker = await SecureKafkaBroker.start({ host: HostsNetwork.MANAGERS_ADDRESS, netns: HostsNetwork.MANAGERS, scramUsers: [{ username: 'shoal', password: SCRAM_PASSWORD }] });
    const client = broker.issueClient('shoal');
    const passwordFile = join(broker.tlsDir, 'shoal-password');
    writeFileSync(passwordFile, `${SCRAM_PASSWORD}\n`, { mode: 0o600 });
    deployment = ShoalProcesses.onKafka('hosts', {
      KAFKA_BROKERS: broker.secureBrokers.join(','),
      SHOAL_KAFKA_SSL_CA: client.ca,
      SHOAL_KAFKA_SSL_CERT: client.cert,
      SHOAL_KAFKA_SSL_KEY: client.key,
      SHOAL_KAFKA_SASL_MECHANISM: 'scram-sha-512',
      SHOAL_KAFKA_SASL_USERNAME: 'shoal',
      SHOAL_KAFKA_SASL_PASSWORD_FILE: passwordFile,
      SHOAL_CA_DIR: join(mkdtempSync(join(tmpdir(), 'shoal-hosts-ca-')), 'ca'),
      SHOAL_HEALTH_PORT: '0',
      SHOAL_API_PORT: '0',
    });
    socket = join(deployment.dataDir, 'shoal.sock');
    const api = deployment.cliIn(HostsNetwork.MANAGERS, ['run', 'api']);
    await api.waitFor(/api: listening on/, 90_000);
    const init = await dockerApi(socket, 'POST', '/v1.47/swarm/init', { ListenAddr: '0.0.0.0:2377', Spec: { Dispatcher: { HeartbeatPeriod: 1_000_000_000 } } });
    expect(init.status).toBe(200);
    const components = COMPONENTS.map((name) =>
      deployment.cliIn(HostsNetwork.MANAGERS, ['run', name], name === 'dispatcher' ? { SHOAL_BIND_HOST: '0.0.0.0', SHOAL_DISPATCHER_PORT: String(DISPATCHER_PORT) } : {}),
    );
    await Promise.all(components.map((p) => p.waitFor(/active under term/, 90_000)));
    token = (await dockerApi<{ JoinTokens: { Worker: string } }>(socket, 'GET', '/swarm')).body.JoinTokens.Worker;
  });

  afterAll(async () => {
    await deployment?.close();
    await broker?.stop();
    network?.remove();
  });

  it('runs a service across two hosts whose agents joined over mutual TLS through their own links', async () => {
    agents.a = agentOn('a', token);
    agents.b = agentOn('b', token);
    const ready = await eventually('both hosts ready', async () => {
      const all = await nodes();
      return all.length === 2 && all.every((n) => n.Status.State === 'ready') ? all : undefined;
    }, 90_000);
    // Each node is known by its certificate, and seen at its own host's address.
    for (const host of ['a', 'b'] as const) {
      const node = ready.find((n) => n.Description.Hostname === `host-${host}`)!;
      expect(new X509Certificate(readFileSync(join(stateDirs[host], 'node-cert.pem'))).subject).toContain(`CN=${node.ID}`);
      expect(node.Status.Addr).toBe(host === 'a' ? '10.214.1.2' : '10.214.2.2');
    }
    expect((await docker(['service', 'create', '-d', '--name', 'web', '--replicas', '2', 'busybox', 'sh', '-c', 'exec sleep 1000'])).code).toBe(0);
    const running = await eventually('one task on each host', async () => {
      const tasks = await runningTasks();
      return tasks.length === 2 && new Set(tasks.map((t) => t.NodeID)).size === 2 ? tasks : undefined;
    }, 90_000);
    expect(running.map((t) => t.NodeID).sort()).toEqual(ready.map((n) => n.ID).sort());
  });

  it("a host whose link is cut goes down and its task moves; back, its agent rejoins by itself as the same node", async () => {
    const before = (await nodeOf('a'))!;
    const other = (await nodeOf('b'))!;
    network.cut('a');
    await eventually('host a down', async () => ((await nodeOf('a'))?.Status.State === 'down' ? true : undefined), 60_000);
    await eventually('both tasks running on host b', async () => {
      const tasks = await runningTasks();
      return tasks.length === 2 && tasks.every((t) => t.NodeID === other.ID) ? tasks : undefined;
    }, 90_000);

    network.restore('a');
    const back = await eventually('host a ready again', async () => {
      const node = await nodeOf('a');
      return node?.Status.State === 'ready' ? node : undefined;
    }, 90_000);
    expect(back.ID).toBe(before.ID);
    expect((await nodes()).filter((n) => n.Description.Hostname === 'host-a')).toHaveLength(1);
    expect(agents.a!.running).toBe(true);
  });

  it('writes no join token, password or private key in any process output', async () => {
    const current = (await dockerApi<{ JoinTokens: { Worker: string } }>(socket, 'GET', '/swarm')).body.JoinTokens.Worker;
    const outputs = deployment.outputs().join('\n');
    expect(outputs).toContain('certificate from the dispatcher');
    for (const secret of [token.slice(-25), current.slice(-25), SCRAM_PASSWORD]) expect(outputs).not.toContain(secret);
    expect(outputs).not.toMatch(/PRIVATE KEY/);
  });

  it('refuses an agent presenting a join token rotated out', async () => {
    const rotated = await docker(['swarm', 'join-token', '--rotate', '-q', 'worker']);
    expect(rotated.code).toBe(0);
    const late = agentOn('b', token, mkdtempSync(join(tmpdir(), 'shoal-host-b2-')), 'host-late');
    await eventually('the late agent to stop', async () => (late.running ? undefined : true), 60_000);
    expect(late.exitCode).not.toBe(0);
    expect(late.output).toMatch(/refused the join: invalid join token: it is not a current token of this cluster/);
    expect((await nodes()).map((n) => n.Description.Hostname)).not.toContain('host-late');
  });
});
