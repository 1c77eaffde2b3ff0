/**
 * Services' virtual IPs answering on the node: while a task of a service in VIP mode is
 * up, its address on each Shoal network answers the service's VIP there, for the clients
 * on that network's bridge. The host holds each VIP as an address on the bridge (so that
 * it answers the clients' ARP for it) and the nat table DNATs what comes to it to one of
 * the service's tasks up on the node (vip-rules); both follow the tasks as they come and
 * go, and go with the service's last task on the node. Each task's bridge port is put in
 * hairpin mode, so that the task reaches its own service's VIP when it is the one picked.
 *
 * The rules are the host's: they are made only when the agent runs on the engine's host,
 * in its network namespace (the bridge is there to be seen), as root with `iptables`, `ip`
 * and `nsenter`. Where they cannot be made the VIP answers nothing, and the agent's log says why;
 * the task runs all the same (its address and its names answer).
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import type { AssignedTask } from '../executor';
import { engineNetworkName, nodeNetworks } from './container-config';
import type { EngineClient } from './engine-client';
import { bridgeInterface } from './engine-networks';
import { readNatTable, restoreInput, staleAddresses } from './vip-rules';
import type { LocalVip } from './vip-rules';

/** One task's address answering its service's VIP on one network. */
interface Backend {
  readonly serviceId: string;
  readonly networkId: string;
  readonly bridge: string;
  readonly vip: string;
  readonly address: string;
}

/** Runs a command of the host, with `input` on its stdin; its stdout, or an error with its stderr. */
const run = (command: string, args: readonly string[], input?: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = execFile(command, args, { encoding: 'utf8', timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} ${args.join(' ')}: ${stderr.trim() || error.message}`));
      else resolve(stdout);
    });
    if (input !== undefined) child.stdin?.end(input);
  });

/** The bridge holds `vip` (false when the bridge is gone). */
const holds = async (bridge: string, vip: string): Promise<boolean> => {
  if (!existsSync(`/sys/class/net/${bridge}`)) return false;
  return (await run('ip', ['-o', '-4', 'addr', 'show', 'dev', bridge])).includes(` inet ${vip}/32 `);
};

/** The bridge made to hold `vip` as an address of the host's, or no longer; already so, nothing is done. */
const address = async (action: 'add' | 'del', vip: string, bridge: string): Promise<void> => {
  if ((await holds(bridge, vip)) === (action === 'add')) return;
  await run('ip', ['addr', action, `${vip}/32`, 'dev', bridge]);
};

/**
 * Hairpin mode on the bridge port of the container (its process `pid`) that holds
 * `address`: the interface that holds it in the container's network namespace names its
 * peer's index (`eth0@if171`), and the bridge's port of that index is the container's.
 */
const hairpinOn = async (pid: number | undefined, address: string, bridge: string): Promise<void> => {
  if (!pid) throw new Error('the engine gave no process of the container');
  const inContainer = (args: readonly string[]): Promise<string> => run('nsenter', [`--net=/proc/${pid}/ns/net`, 'ip', '-o', ...args]);
  const holder = (await inContainer(['-4', 'addr', 'show'])).split('\n').find((line) => line.includes(` inet ${address}/`))?.split(/\s+/)[1];
  if (holder === undefined) throw new Error(`no interface of the container holds ${address}`);
  const peer = /@if(\d+):/.exec(await inContainer(['link', 'show', 'dev', holder]))?.[1];
  for (const port of await readdir(`/sys/class/net/${bridge}/brif`)) {
    if ((await readFile(`/sys/class/net/${port}/ifindex`, 'utf8')).trim() !== peer) continue;
    await writeFile(`/sys/class/net/${port}/brport/hairpin_mode`, '1');
    return;
  }
  throw new Error(`no port of ${bridge} is the peer (index ${peer ?? 'unknown'}) of the container's ${holder}`);
};

const withoutPrefix = (cidr: string): string => cidr.split('/')[0]!;
const isIpv4 = (address: string): boolean => !address.includes(':');

/** The VIPs wanted: each service's on each network, spread over its tasks' addresses there (sorted, so that a rewrite with the same tasks is the same). */
const localVips = (backends: Iterable<Backend>): LocalVip[] => {
  const byVip = new Map<string, LocalVip & { backends: string[] }>();
  for (const backend of backends) {
    const key = `${backend.serviceId}/${backend.networkId}`;
    const vip = byVip.get(key) ?? { serviceId: backend.serviceId, networkId: backend.networkId, bridge: backend.bridge, vip: backend.vip, backends: [] };
    vip.backends.push(backend.address);
    byVip.set(key, vip);
  }
  return [...byVip.values()].map((vip) => ({ ...vip, backends: [...new Set(vip.backends)].sort() }));
};

export class ServiceVips {
  /** The tasks up, by id, with their addresses answering VIPs. */
  private readonly up = new Map<string, readonly Backend[]>();
  private syncing: Promise<void> = Promise.resolve();

  constructor(
    private readonly engine: EngineClient,
    private readonly nodeId: () => string,
    private readonly say: (line: string) => void,
  ) {}

  /** The task is up (its container's process `pid`): its addresses answer its service's VIPs, once this resolves. Never rejects: what cannot be made is said. */
  async taskUp(task: AssignedTask, pid: number | undefined): Promise<void> {
    const backends: Backend[] = [];
    for (const network of nodeNetworks(task)) {
      if (network.virtualIp === undefined) continue;
      const vip = withoutPrefix(network.virtualIp);
      const taskAddress = network.addresses.map(withoutPrefix).find(isIpv4);
      const about = `the virtual IP ${vip} of service ${task.serviceName} on network ${network.name}`;
      if (!isIpv4(vip) || taskAddress === undefined) {
        this.say(`${about} does not answer on this node: only IPv4 virtual IPs do`);
        continue;
      }
      const bridge = await bridgeInterface(this.engine, engineNetworkName(network)).catch(() => undefined);
      if (bridge === undefined) {
        this.say(`${about} does not answer on this node: the engine has no network ${engineNetworkName(network)}`);
        continue;
      }
      if (!existsSync(`/sys/class/net/${bridge}`)) {
        this.say(`${about} does not answer on this node: its bridge ${bridge} is not in the agent's network namespace (the agent is not on the engine's host)`);
        continue;
      }
      await hairpinOn(pid, taskAddress, bridge).catch((error: unknown) =>
        this.say(`task ${task.id} will not reach ${about} itself: its bridge port is not in hairpin mode: ${error instanceof Error ? error.message : String(error)}`),
      );
      backends.push({ serviceId: task.serviceId, networkId: network.id, bridge, vip, address: taskAddress });
    }
    if (backends.length === 0) return;
    this.up.set(task.id, backends);
    await this.sync();
  }

  /** The task is down (its container ended, or is gone): its addresses answer no VIP any longer, once this resolves; a VIP with no task left goes. */
  async taskDown(taskId: string): Promise<void> {
    // Told twice (its container ended, then it is removed): the second waits for the first's rewrite.
    if (!this.up.delete(taskId)) return this.syncing;
    await this.sync();
  }

  /** The host's rules and addresses made to say the tasks up, one rewrite at a time. */
  private sync(): Promise<void> {
    const next = this.syncing.then(() => this.rewrite());
    this.syncing = next;
    return next;
  }

  private async rewrite(): Promise<void> {
    try {
      await applyVips(this.nodeId(), localVips([...this.up.values()].flat()));
    } catch (error) {
      this.say(`services' virtual IPs on this node could not be made to answer: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** The host's nat table and bridges made to hold the node's `wanted` VIPs and no others of its own (none: its chains go). */
export const applyVips = async (nodeId: string, wanted: readonly LocalVip[]): Promise<void> => {
  const table = readNatTable(await run('iptables-save', ['-t', 'nat']), nodeId);
  for (const vip of wanted) await address('add', vip.vip, vip.bridge);
  const input = restoreInput(nodeId, wanted, table);
  if (input !== undefined) await run('iptables-restore', ['-w', '5', '--noflush'], input);
  for (const stale of staleAddresses(nodeId, wanted, table)) await address('del', stale.vip, stale.bridge);
};
