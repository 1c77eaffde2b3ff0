/**
 * The configs and secrets one assignments stream has sent its node, as SwarmKit's
 * assignment set keeps them: a config (or secret) goes to the node in the same message as
 * the first task sent that uses it, and is removed with the last such task. Secrets go
 * as the view holds them, sealed: the dispatcher opens them as it writes the message. A config the view
 * does not have (removed while tasks of an older spec still use it) is not sent: the agent
 * rejects a task it has not got the configs of. A config's data never changes (only its
 * labels may), so one that was sent is never sent again while the node keeps it.
 *
 * Only tasks whose spec names configs cost anything: for the others it is one look at
 * `container.configs` as the task is sent, and one lookup in an empty map as it goes.
 */
import type { Task } from '@shoal/contracts';
import type { ClusterState } from '../state';

/** A config as a node is sent it: its name and its bytes (base64, as the view holds them); a secret's bytes sealed. */
export interface AssignedConfig {
  readonly id: string;
  readonly name: string;
  readonly data: string;
  /** A secret: `data` is its sealed bytes, to be opened before they leave the dispatcher. */
  readonly secret?: true;
}

export type ConfigChange = { readonly action: 'update'; readonly config: AssignedConfig } | { readonly action: 'remove'; readonly configId: string };

const NONE: readonly string[] = [];

/** The config and secret ids a task's spec uses, each once. */
export const configIdsOf = (task: Task): readonly string[] => {
  const { configs, secrets } = task.spec.container;
  if (secrets === undefined || secrets.length === 0) {
    if (configs === undefined || configs.length === 0) return NONE;
    if (configs.length === 1) return [configs[0]!.configId];
  }
  return [...new Set([...(configs ?? []).map((ref) => ref.configId), ...(secrets ?? []).map((ref) => ref.secretId)])];
};

/** What the node is sent of config or secret `id`, or undefined when the view has neither. */
const assignedOf = (state: ClusterState, id: string): AssignedConfig | undefined => {
  const config = state.configs.get(id);
  if (config) return { id, name: config.spec.name, data: config.spec.data };
  const secret = state.secrets.get(id);
  return secret ? { id, name: secret.spec.name, data: secret.data.sealed, secret: true } : undefined;
};

export class NodeConfigs {
  /** Config id → how many of the tasks sent hold it, for each config sent. */
  private readonly holders = new Map<string, number>();
  /** Task id → the configs it holds, for the tasks sent that hold any. */
  private readonly heldBy = new Map<string, readonly string[]>();

  /** Forgets everything sent (a COMPLETE set follows). */
  clear(): void {
    this.holders.clear();
    this.heldBy.clear();
  }

  /** `task` is being sent: the configs it uses that the node has not got, and the view has, go with it. */
  taskSent(state: ClusterState, task: Task, out: ConfigChange[]): void {
    const ids = configIdsOf(task);
    if (ids.length === 0) return;
    const held: string[] = [];
    for (const id of ids) {
      const holders = this.holders.get(id);
      if (holders !== undefined) {
        this.holders.set(id, holders + 1);
        held.push(id);
        continue;
      }
      const config = assignedOf(state, id);
      if (!config) continue;
      this.holders.set(id, 1);
      held.push(id);
      out.push({ action: 'update', config });
    }
    if (held.length > 0) this.heldBy.set(task.id, held);
  }

  /** The task `taskId` is removed from the node: the configs no task sent holds any more go too. */
  taskRemoved(taskId: string, out: ConfigChange[]): void {
    const held = this.heldBy.get(taskId);
    if (held === undefined) return;
    this.heldBy.delete(taskId);
    for (const id of held) {
      const holders = (this.holders.get(id) ?? 1) - 1;
      if (holders > 0) {
        this.holders.set(id, holders);
      } else {
        this.holders.delete(id);
        out.push({ action: 'remove', configId: id });
      }
    }
  }

  /** The configs the node has been sent, by id. */
  sent(): ReadonlySet<string> {
    return new Set(this.holders.keys());
  }
}
