/**
 * A Shoal network made real on a node: a bridge network on the node's engine, named
 * `shoal-<network name>`, labelled with the Shoal network's id, with the subnet and
 * gateway the allocator gave it, internal when the Shoal network is (container-config's
 * networkCreate). It is made before the first task's container that joins it, taken as it
 * is when it already exists with that subnet and internal setting, refused when one of
 * that name differs, and removed once no container uses it. Containers of other nodes (or
 * hosts) are not reached: the bridge is the node's.
 */
import type { AssignedNetwork } from '@shoal/contracts';
import { engineNetworkName, NETWORK_LABELS, networkCreate } from './container-config';
import { EngineError } from './engine-client';
import type { EngineClient } from './engine-client';

/** What `GET /networks/{id}` answers, as far as the executor reads it. */
interface EngineNetwork {
  readonly Id: string;
  readonly Driver?: string;
  readonly Internal?: boolean;
  readonly Options?: Record<string, string> | null;
  readonly Labels?: Record<string, string> | null;
  readonly IPAM?: { readonly Config?: readonly { readonly Subnet?: string }[] | null };
}

const inspect = (engine: EngineClient, name: string): Promise<EngineNetwork | undefined> => engine.find<EngineNetwork>('GET', `/networks/${encodeURIComponent(name)}`);

const internality = (internal: boolean): string => (internal ? 'internal' : 'not internal');

/** Takes an existing engine network for `network`, or refuses it clearly: it must be a bridge with the allocator's subnet, internal as the Shoal network is. */
const checkExisting = (existing: EngineNetwork, network: AssignedNetwork): void => {
  const name = engineNetworkName(network);
  const subnets = (existing.IPAM?.Config ?? []).map((config) => config.Subnet).filter((subnet): subnet is string => subnet !== undefined);
  const remove = `remove it from the engine (docker network rm ${name}) for the task to run`;
  if (existing.Driver !== 'bridge' || !subnets.includes(network.subnet)) {
    throw new Error(
      `network ${network.name} (${network.id}): the engine already has a network ${name} (driver ${existing.Driver ?? 'unknown'}, subnet ${subnets.join(', ') || 'none'}), ` +
        `not a bridge with the allocator's subnet ${network.subnet}; ${remove}`,
    );
  }
  const internal = network.internal === true;
  if ((existing.Internal === true) !== internal) {
    throw new Error(
      `network ${network.name} (${network.id}) is ${internality(internal)}, but the engine already has a network ${name} that is ${internality(existing.Internal === true)}; ${remove}`,
    );
  }
};

/** The engine network of `network` exists on the engine, with the allocator's subnet and gateway: made, or an existing one taken. */
export const ensureNetwork = async (engine: EngineClient, network: AssignedNetwork): Promise<void> => {
  const existing = await inspect(engine, engineNetworkName(network));
  if (existing) return checkExisting(existing, network);
  try {
    await engine.call('POST', '/networks/create', { body: networkCreate(network) });
  } catch (error) {
    if (!(error instanceof EngineError && error.statusCode === 409)) throw error;
    // Made meanwhile (another agent on the same engine): take it if it is the same.
    const made = await inspect(engine, engineNetworkName(network));
    if (!made) throw error;
    checkExisting(made, network);
  }
}

/** The bridge option that names a bridge network's interface; without it the engine names it `br-<first 12 of the network's id>`. */
const BRIDGE_NAME_OPTION = 'com.docker.network.bridge.name';

/** The host interface of the engine network `name` (a bridge), or undefined when the engine has no such network. */
export const bridgeInterface = async (engine: EngineClient, name: string): Promise<string | undefined> => {
  const existing = await inspect(engine, name);
  if (!existing) return undefined;
  return existing.Options?.[BRIDGE_NAME_OPTION] ?? `br-${existing.Id.slice(0, 12)}`;
};

/**
 * Removes the engine network `name` if it is a Shoal network's (it carries the label) and
 * no container names it — running, or created and not started yet, or exited and not
 * removed (the network's own list of containers has only the running ones); true when it
 * went. A network in use (403) or gone (404) stays so.
 */
export const removeUnusedNetwork = async (engine: EngineClient, name: string): Promise<boolean> => {
  const existing = await inspect(engine, name);
  if (!existing?.Labels?.[NETWORK_LABELS.networkId]) return false;
  const users = await engine.call<unknown[]>('GET', '/containers/json', { query: { all: 1, filters: JSON.stringify({ network: [name] }) } });
  if (users.length > 0) return false;
  try {
    await engine.call('DELETE', `/networks/${existing.Id}`);
    return true;
  } catch (error) {
    if (error instanceof EngineError && (error.statusCode === 403 || error.statusCode === 404)) return false;
    throw error;
  }
};
