import fc from 'fast-check';
import { Sha256, sha256 } from './sha256';
import { canonicalJson } from './canonical';

/** The definition, written the obvious way: the oracle for the faster writer. */
const reference = (value: unknown): string => {
  if (value === null || typeof value !== 'object') return value === undefined ? 'null' : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field !== undefined) parts.push(`${JSON.stringify(key)}:${reference(field)}`);
  }
  return `{${parts.join(',')}}`;
};

/** JSON-like values with undefined fields, odd keys and numbers. */
const values = fc.letrec((tie) => ({
  leaf: fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constantFrom(-0, 1e21, 5e-7, Infinity, NaN)),
  array: fc.array(tie('value'), { maxLength: 4 }),
  object: fc.dictionary(fc.oneof(fc.string(), fc.constantFrom('a', 'b', 'é', '"q"', '__proto__x', '10', '9')), tie('value'), { maxKeys: 5 }),
  value: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('array'), tie('object')),
}));

describe('sha256', () => {
  it.each([
    ['', 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'],
    ['abc', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'],
    [
      'abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq',
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    ],
    ['a'.repeat(1_000_000), 'cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0'],
  ])('matches the FIPS 180-4 vector for a %#', (input, digest) => {
    expect(sha256(input)).toBe(digest);
  });

  it('gives the same digest however the input is split', () => {
    const text = 'héllo, wörld — 日本 ✓ '.repeat(50);
    const hasher = new Sha256();
    for (let i = 0; i < text.length; i += 13) hasher.update(text.slice(i, i + 13));
    expect(hasher.hex()).toBe(sha256(text));
  });
});

describe('canonicalJson', () => {
  it('is the obvious definition, for any value', () => {
    fc.assert(
      fc.property(values.value, (value) => expect(canonicalJson(value)).toBe(reference(value))),
      { numRuns: 2_000 },
    );
  });

  it('writes keys that Object.prototype also has as the keys they are', () => {
    const record = JSON.parse('{"constructor":1,"toString":2,"__proto__":3,"valueOf":4}') as Record<string, unknown>;
    expect(canonicalJson(record)).toBe('{"__proto__":3,"constructor":1,"toString":2,"valueOf":4}');
    expect(canonicalJson(record)).toBe(reference(record));
  });

  it('sorts the same list of keys the same way, whichever order they came in', () => {
    expect(canonicalJson({ b: 1, a: 2 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson({ a: 2, b: 1 })).toBe('{"a":2,"b":1}');
    expect(canonicalJson({ b: 1, a: 2, c: undefined })).toBe('{"a":2,"b":1}');
  });

  it('sorts keys at every depth and drops undefined fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: undefined, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"z":1}]},"b":1}',
    );
  });
});
