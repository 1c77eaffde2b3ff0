/**
 * How deep a JSON value nests, checked before anything recursive (class-transformer,
 * class-validator) walks it: a body nested a hundred thousand levels deep would overflow
 * their stack. The walk here keeps its own stack, so no depth can overflow it.
 */

/**
 * The deepest body the API reads. The deepest real spec (a service's
 * TaskTemplate.ContainerSpec.Healthcheck.Test, a network's IPAM.Config) nests under ten
 * levels; the validation's recursion overflows in the thousands.
 */
export const JSON_DEPTH_LIMIT = 100;

/** Whether `value` nests deeper than `limit` arrays and objects (a scalar is depth 0, `{"a":1}` depth 1). */
export const nestsDeeperThan = (value: unknown, limit: number): boolean => {
  const pending: [unknown, number][] = [[value, 0]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [item, depth] = next;
    if (item === null || typeof item !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
};

export const tooDeepMessage = (limit: number): string => `the request body nests deeper than ${limit} levels`;
