/**
 * Generic resources on a node, as the scheduler counts them: discrete ones by kind
 * ("ssd": 3) and named ones by kind, one unit per name ("gpu" = GPU-0, GPU-1). A task asks
 * for a count of a kind (served from the named units of that kind, or its discrete count)
 * or for one named unit itself.
 */
import type { GenericResource } from '@shoal/contracts';

export interface GenericPool {
  /** kind → units left */
  readonly discrete: Map<string, number>;
  /** kind → names left, in the order the node reported them */
  readonly named: Map<string, string[]>;
}

/** What one task took from a pool, so that exactly that goes back. */
export interface GenericClaim {
  readonly discrete: readonly (readonly [kind: string, count: number])[];
  readonly named: readonly (readonly [kind: string, name: string])[];
}

export const isNamed = (r: GenericResource): r is { readonly kind: string; readonly named: string } => 'named' in r;

/** The pool a node offers before any task takes from it. */
export const genericPool = (resources: readonly GenericResource[] | undefined): GenericPool => {
  const pool: GenericPool = { discrete: new Map(), named: new Map() };
  for (const r of resources ?? []) {
    if (isNamed(r)) pool.named.set(r.kind, [...(pool.named.get(r.kind) ?? []), r.named]);
    else pool.discrete.set(r.kind, (pool.discrete.get(r.kind) ?? 0) + r.discrete);
  }
  return pool;
};

/** Whether the pool can serve every request at once. */
export const hasEnough = (pool: GenericPool, requests: readonly GenericResource[]): boolean => {
  const counts = new Map<string, number>();
  for (const r of requests) {
    if (isNamed(r)) {
      if (!(pool.named.get(r.kind) ?? []).includes(r.named)) return false;
    } else counts.set(r.kind, (counts.get(r.kind) ?? 0) + r.discrete);
  }
  for (const [kind, wanted] of counts) {
    if (wanted <= 0) continue;
    const named = pool.named.get(kind)?.length ?? 0;
    const discrete = pool.discrete.get(kind) ?? 0;
    if (named > 0 ? named < wanted : discrete < wanted) return false;
  }
  return true;
};

/** Takes the requests from the pool (as far as it can) and says what was taken. */
export const claim = (pool: GenericPool, requests: readonly GenericResource[]): GenericClaim => {
  const discrete: (readonly [string, number])[] = [];
  const named: (readonly [string, string])[] = [];
  for (const r of requests) {
    const names = pool.named.get(r.kind);
    if (isNamed(r)) {
      const at = names?.indexOf(r.named) ?? -1;
      if (names && at >= 0) {
        names.splice(at, 1);
        named.push([r.kind, r.named]);
      }
    } else if (names && names.length > 0) {
      for (const name of names.splice(0, Math.max(0, r.discrete))) named.push([r.kind, name]);
    } else if (r.discrete > 0) {
      pool.discrete.set(r.kind, (pool.discrete.get(r.kind) ?? 0) - r.discrete);
      discrete.push([r.kind, r.discrete]);
    }
  }
  return { discrete, named };
};

/** Gives back what a claim took. */
export const reclaim = (pool: GenericPool, taken: GenericClaim): void => {
  for (const [kind, count] of taken.discrete) pool.discrete.set(kind, (pool.discrete.get(kind) ?? 0) + count);
  for (const [kind, name] of taken.named) pool.named.set(kind, [...(pool.named.get(kind) ?? []), name]);
};
