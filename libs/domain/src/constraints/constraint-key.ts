/**
 * The keys a placement constraint may name, as SwarmKit knows them: six node fields
 * (case-insensitive) and the labels of the node or of its engine, by a case-sensitive name.
 */

export const NODE_FIELDS = ['node.id', 'node.hostname', 'node.role', 'node.ip', 'node.platform.os', 'node.platform.arch'] as const;
export type NodeField = (typeof NODE_FIELDS)[number];

export const NODE_LABEL_PREFIX = 'node.labels.';
export const ENGINE_LABEL_PREFIX = 'engine.labels.';

/** The keys, as a user reads them: "node.id, …, node.labels.<name>, engine.labels.<name>". */
export const CONSTRAINT_KEYS: readonly string[] = [...NODE_FIELDS, `${NODE_LABEL_PREFIX}<name>`, `${ENGINE_LABEL_PREFIX}<name>`];

/** The node field `key` names (any case), if it names one. */
export const nodeFieldOf = (key: string): NodeField | undefined => {
  const lower = key.toLowerCase();
  return NODE_FIELDS.find((field) => field === lower);
};

/** The label name after `prefix` (matched in any case), if `key` names a label under it. */
export const labelNameOf = (key: string, prefix: string): string | undefined =>
  key.length > prefix.length && key.slice(0, prefix.length).toLowerCase() === prefix ? key.slice(prefix.length) : undefined;

/** Whether `key` is one a constraint may name. */
export const isConstraintKey = (key: string): boolean =>
  nodeFieldOf(key) !== undefined || labelNameOf(key, NODE_LABEL_PREFIX) !== undefined || labelNameOf(key, ENGINE_LABEL_PREFIX) !== undefined;
