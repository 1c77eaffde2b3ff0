/**
 * Placement constraint syntax, as SwarmKit parses it: `<key> == <value>` or
 * `<key> != <value>`, the key one of node.id, node.hostname, node.role, node.ip,
 * node.platform.os, node.platform.arch, node.labels.<label>, engine.labels.<label>.
 */
const CONSTRAINT = /^\s*([\w.-]+)\s*(==|!=)\s*(\S.*?)\s*$/;
const KEYS = /^(node\.(id|hostname|role|ip|platform\.os|platform\.arch)|(node|engine)\.labels\.[\w.-]+)$/i;

/** Why a constraint is not valid, or undefined when it is. */
export const constraintProblem = (constraint: string): string | undefined => {
  const match = CONSTRAINT.exec(constraint);
  if (!match) return `"${constraint}" is not of the form <key>==<value> or <key>!=<value>`;
  if (!KEYS.test(match[1]!)) return `"${match[1]}" is not a constraint key (node.id, node.hostname, node.role, node.ip, node.platform.os, node.platform.arch, node.labels.<name>, engine.labels.<name>)`;
  return undefined;
};
