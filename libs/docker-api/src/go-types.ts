/**
 * Go's types, as Docker's engine declares its request bodies, and a body decoded into one
 * as Go's encoding/json decodes it — the one decode of such a body, before the mapper reads
 * it. The same declaration gives the body's schema in `/openapi.json`.
 *
 * As encoding/json (Go 1.19, Docker 20.10's): a key names a struct field exactly or, failing
 * that, case-insensitively, and keys are decoded in order (a later one for the same field
 * wins, a struct's or a map's keys merging); `null` leaves a field unset; a key that names no field is
 * ignored (dropped); keys of a map are data and keep their case. A value of the wrong JSON
 * kind, or a number the field's integer type cannot hold, is refused with Go's own words:
 * `json: cannot unmarshal string into Go struct field PortConfig.EndpointSpec.Ports.TargetPort of type uint32`.
 * The first such error in the body's order is the one reported.
 *
 * One difference: JSON.parse reads `1.0` and `1e2` as the integers 1 and 100, which Go
 * refuses for an integer field (it reads the literal); here they are accepted.
 */
import { BadInputError } from './bad-input';

type IntName = 'int' | 'int32' | 'int64' | 'uint8' | 'uint16' | 'uint32' | 'uint64' | 'time.Duration' | 'os.FileMode';

export type GoType =
  | { readonly kind: 'string'; readonly name: string }
  | { readonly kind: 'bool' }
  | { readonly kind: 'bytes' }
  | { readonly kind: 'int'; readonly name: IntName }
  | { readonly kind: 'float'; readonly name: 'float32' | 'float64' }
  | { readonly kind: 'slice'; readonly of: GoType }
  | { readonly kind: 'map'; readonly of: GoType }
  | { readonly kind: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, GoType>>; readonly closed?: string };

/** The constructors a declaration reads with: `struct('swarm.Driver', { Name: str(), Options: map(str()) })`. */
export const go = {
  str: (name = 'string'): GoType => ({ kind: 'string', name }),
  bool: (): GoType => ({ kind: 'bool' }),
  /** `[]byte`: base64 in JSON (the standard alphabet, padded); kept as the base64 text. */
  bytes: (): GoType => ({ kind: 'bytes' }),
  int: (name: IntName): GoType => ({ kind: 'int', name }),
  float: (name: 'float32' | 'float64'): GoType => ({ kind: 'float', name }),
  slice: (of: GoType): GoType => ({ kind: 'slice', of }),
  map: (of: GoType): GoType => ({ kind: 'map', of }),
  struct: (name: string, fields: Readonly<Record<string, GoType>>): GoType => ({ kind: 'struct', name, fields }),
  /**
   * A struct whose fields are a choice (a service's mode): a key that names none of them is
   * refused, naming the choices, where Go would ignore it — ignoring it would run something
   * other than what was asked for.
   */
  choice: (name: string, what: string, fields: Readonly<Record<string, GoType>>): GoType => ({ kind: 'struct', name, fields, closed: what }),
};

/** The range of each integer type; time.Duration is an int64, os.FileMode a uint32. */
const INT_RANGES: Readonly<Record<IntName, readonly [number, number]>> = {
  int: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  int32: [-(2 ** 31), 2 ** 31 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  'time.Duration': [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint8: [0, 255],
  uint16: [0, 65_535],
  uint32: [0, 2 ** 32 - 1],
  'os.FileMode': [0, 2 ** 32 - 1],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

/** The true upper bound of each integer type, where it is wider than INT_RANGES keeps. */
const GO_MAX: Readonly<Record<IntName, number>> = { ...Object.fromEntries(Object.entries(INT_RANGES).map(([name, [, max]]) => [name, max])) as Record<IntName, number>, int: 2 ** 63 - 1, int64: 2 ** 63 - 1, 'time.Duration': 2 ** 63 - 1, uint64: 2 ** 64 - 1 };

/** Go's name of a type in its messages: a struct's package-qualified name, a slice's `[]T`. */
const typeName = (type: GoType): string => {
  switch (type.kind) {
    case 'string':
    case 'int':
    case 'float':
    case 'struct':
      return type.name;
    case 'bool':
      return 'bool';
    case 'bytes':
      return '[]uint8';
    case 'slice':
      return `[]${typeName(type.of)}`;
    case 'map':
      return `map[string]${typeName(type.of)}`;
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
};

const jsonKind = (value: unknown): string =>
  Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value === 'object' ? 'object' : typeof value === 'boolean' ? 'bool' : typeof value;

/** A body Go would not decode: Docker's 400 with Go's words. */
export class GoDecodeError extends BadInputError {
  override readonly name = 'GoDecodeError';
}

/** Where a value sits: the innermost struct's short name and the field path from the top (no indices, as Go). */
interface At {
  readonly struct: string;
  readonly path: readonly string[];
}

const unmarshalError = (value: unknown, type: GoType, at: At | undefined, literal = false): GoDecodeError => {
  const what = literal ? `number ${String(value)}` : jsonKind(value);
  const where = at ? `Go struct field ${at.struct}.${at.path.join('.')}` : 'Go value';
  return new GoDecodeError(`json: cannot unmarshal ${what} into ${where} of type ${typeName(type)}`);
};

/** The struct field a key names: exactly, else the first that matches it case-insensitively. */
const fieldFor = (fields: Readonly<Record<string, GoType>>, key: string): string | undefined => {
  if (Object.hasOwn(fields, key)) return key;
  const folded = key.toLowerCase();
  return Object.keys(fields).find((name) => name.toLowerCase() === folded);
};

/**
 * Where Go's base64 decoder stops on `text`, or undefined when it is good base64: the first
 * character outside the alphabet, else the start of a quantum left incomplete or padded
 * wrong.
 */
const illegalBase64At = (text: string): number | undefined => {
  const body = text.replace(/={1,2}$/, '');
  const outside = body.search(/[^A-Za-z0-9+/]/);
  if (outside >= 0) return outside;
  if (text.length % 4 !== 0 || body.length % 4 === 1) return text.length - (text.length % 4 || 4);
  return undefined;
};

/** A type's zero value, which Go leaves where a map's or a slice's element is null. */
const zeroOf = (type: GoType): unknown => {
  switch (type.kind) {
    case 'string':
    case 'bytes':
      return '';
    case 'bool':
      return false;
    case 'int':
    case 'float':
      return 0;
    case 'slice':
      return [];
    case 'map':
    case 'struct':
      return {};
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
};

/** `later` decoded over `earlier` into a field of `type`: a struct's or a map's keys merge, anything else is replaced. */
const mergeInto = (type: GoType, earlier: unknown, later: unknown): unknown => {
  if (type.kind === 'map') return { ...(earlier as Record<string, unknown>), ...(later as Record<string, unknown>) };
  if (type.kind !== 'struct') return later;
  const merged: Record<string, unknown> = { ...(earlier as Record<string, unknown>) };
  for (const [field, value] of Object.entries(later as Record<string, unknown>)) {
    merged[field] = Object.hasOwn(merged, field) ? mergeInto(type.fields[field]!, merged[field], value) : value;
  }
  return merged;
};

const shortName = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

const decodeValue = (value: unknown, type: GoType, at: At | undefined): unknown => {
  switch (type.kind) {
    case 'string':
      if (typeof value !== 'string') throw unmarshalError(value, type, at);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw unmarshalError(value, type, at);
      return value;
    case 'bytes': {
      if (typeof value !== 'string') throw unmarshalError(value, type, at);
      const bad = illegalBase64At(value);
      if (bad !== undefined) throw new GoDecodeError(`illegal base64 data at input byte ${bad}`);
      return value;
    }
    case 'int': {
      if (typeof value !== 'number') throw unmarshalError(value, type, at);
      const [min, max] = INT_RANGES[type.name];
      if (!Number.isInteger(value) || value < min || value > GO_MAX[type.name]) throw unmarshalError(value, type, at, true);
      // Go's int64 and uint64 reach past what a JSON number keeps exact here: refused, not rounded.
      if (value > max || value < min) throw new GoDecodeError(`invalid ${at?.path.join('.') ?? 'body'}: ${value} is past the largest integer Shoal keeps exact (${max})`);
      return value;
    }
    case 'float':
      if (typeof value !== 'number') throw unmarshalError(value, type, at);
      if (type.name === 'float32' && Math.abs(value) > 3.4028234663852886e38) throw unmarshalError(value, type, at, true);
      return value;
    case 'slice':
      if (!Array.isArray(value)) throw unmarshalError(value, type, at);
      // Go leaves a null element at the element's zero value.
      return value.map((item: unknown) => (item === null ? zeroOf(type.of) : decodeValue(item, type.of, at)));
    case 'map': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unmarshalError(value, type, at);
      const decoded: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) decoded[key] = item === null ? zeroOf(type.of) : decodeValue(item, type.of, at);
      return decoded;
    }
    case 'struct': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) throw unmarshalError(value, type, at);
      const decoded: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        const field = fieldFor(type.fields, key);
        if (field === undefined && type.closed !== undefined) {
          const choices = Object.keys(type.fields);
          throw new GoDecodeError(`invalid ${at?.path.join('.') ?? 'body'}: unknown ${type.closed} "${key}" (${choices.slice(0, -1).join(', ')} or ${choices[choices.length - 1]})`);
        }
        // Unknown: ignored, as Go ignores it; null: left as it is.
        if (field === undefined || item === null) continue;
        const fieldType = type.fields[field]!;
        const next = decodeValue(item, fieldType, { struct: shortName(type.name), path: [...(at?.path ?? []), field] });
        // Keys are decoded in order: a later key for the same field (`name` after `Name`) wins,
        // decoding into what an earlier one left, as Go decodes into the field it already filled.
        decoded[field] = Object.hasOwn(decoded, field) ? mergeInto(fieldType, decoded[field], next) : next;
      }
      return decoded;
    }
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
};

/**
 * `body` decoded into `type` as Go decodes it (see the file's comment); throws a
 * GoDecodeError in Go's words. No body is Docker's "got EOF while reading request body".
 */
export const goDecodeAs = <T>(type: GoType, body: unknown): T => {
  if (body === undefined) throw new GoDecodeError('got EOF while reading request body');
  if (body === null) return {} as T;
  return decodeValue(body, type, undefined) as T;
};

/** The OpenAPI (JSON Schema) of a Go type, for `/openapi.json`. */
export const openApiSchema = (type: GoType): Record<string, unknown> => {
  switch (type.kind) {
    case 'string':
      return { type: 'string' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    case 'int': {
      const [min, max] = INT_RANGES[type.name];
      return { type: 'integer', minimum: min, maximum: max, format: type.name };
    }
    case 'float':
      return { type: 'number', format: type.name === 'float32' ? 'float' : 'double' };
    case 'slice':
      return { type: 'array', items: openApiSchema(type.of) };
    case 'map':
      return { type: 'object', additionalProperties: openApiSchema(type.of) };
    case 'struct':
      return { type: 'object', title: type.name, properties: Object.fromEntries(Object.entries(type.fields).map(([name, field]) => [name, openApiSchema(field)])) };
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
};
