/**
 * A tiny structural checker for data read off the log. It answers with the first
 * problem as "path: reason", or undefined when the value fits. Records that do not fit
 * are poison: evolve never sees them.
 *
 * Whether a value fits never depends on the path, so containers first check an item
 * under their own path and spell out the item's path only when it does not fit: a
 * record that fits (nearly all of them) costs no path strings.
 */
export type Shape = (value: unknown, path: string) => string | undefined;

const describe = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export const str: Shape = (v, p) => (typeof v === 'string' ? undefined : `${p}: expected a string, got ${describe(v)}`);

export const nonEmptyStr: Shape = (v, p) =>
  typeof v === 'string' && v.length > 0 ? undefined : `${p}: expected a non-empty string`;

export const int: Shape = (v, p) => (Number.isSafeInteger(v) ? undefined : `${p}: expected an integer, got ${describe(v)}`);

export const nonNegInt: Shape = (v, p) =>
  Number.isSafeInteger(v) && (v as number) >= 0 ? undefined : `${p}: expected a non-negative integer`;

export const num: Shape = (v, p) =>
  typeof v === 'number' && Number.isFinite(v) ? undefined : `${p}: expected a finite number`;

export const bool: Shape = (v, p) => (typeof v === 'boolean' ? undefined : `${p}: expected a boolean`);

export const oneOf =
  <T>(values: readonly T[]): Shape =>
  (v, p) =>
    values.includes(v as T) ? undefined : `${p}: expected one of ${values.map((x) => JSON.stringify(x)).join(', ')}`;

export const optional =
  (shape: Shape): Shape =>
  (v, p) =>
    v === undefined ? undefined : shape(v, p);

export const nullable =
  (shape: Shape): Shape =>
  (v, p) =>
    v === null ? undefined : shape(v, p);

export const arrayOf =
  (item: Shape): Shape =>
  (v, p) => {
    if (!Array.isArray(v)) return `${p}: expected an array, got ${describe(v)}`;
    for (let i = 0; i < v.length; i++) {
      if (item(v[i], p)) return item(v[i], `${p}[${i}]`);
    }
    return undefined;
  };

export const recordOf =
  (item: Shape): Shape =>
  (v, p) => {
    if (!isPlainObject(v)) return `${p}: expected an object, got ${describe(v)}`;
    for (const key of Object.keys(v)) {
      if (item(v[key], p)) return item(v[key], `${p}.${key}`);
    }
    return undefined;
  };

/** An object with (at least) these fields; extra fields are allowed and kept. */
export const object = (fields: Readonly<Record<string, Shape>>): Shape => {
  const keys = Object.keys(fields);
  const shapes = keys.map((key) => fields[key]!);
  return (v, p) => {
    if (!isPlainObject(v)) return `${p}: expected an object, got ${describe(v)}`;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (shapes[i]!(v[key], p)) return shapes[i]!(v[key], p ? `${p}.${key}` : key);
    }
    return undefined;
  };
};

/** Tagged unions: picks the shape by the value of `tag`. */
export const tagged =
  (tag: string, variants: Readonly<Record<string, Shape>>): Shape =>
  (v, p) => {
    if (!isPlainObject(v)) return `${p}: expected an object, got ${describe(v)}`;
    const kind = v[tag];
    const shape = typeof kind === 'string' ? variants[kind] : undefined;
    if (!shape) return `${p}.${tag}: expected one of ${Object.keys(variants).map((k) => JSON.stringify(k)).join(', ')}`;
    return shape(v, p);
  };
