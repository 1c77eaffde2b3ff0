/**
 * Just enough DER (ITU-T X.690) to write an X.509 certificate and to read the two parts of
 * one that a certificate it signs must repeat (the issuer's subject name and public key):
 * tag-length-value writers for the universal types a certificate uses, and a reader that
 * walks a SEQUENCE's children without interpreting them.
 */

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  PRINTABLE_STRING: 0x13,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

const lengthOf = (length: number): Buffer => {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};

/** One tag-length-value. */
export const tlv = (tag: number, ...contents: readonly Buffer[]): Buffer => {
  const body = Buffer.concat(contents);
  return Buffer.concat([Buffer.from([tag]), lengthOf(body.length), body]);
};

export const sequence = (...items: readonly Buffer[]): Buffer => tlv(TAG.SEQUENCE, ...items);
export const set = (...items: readonly Buffer[]): Buffer => tlv(TAG.SET, ...items);
export const boolean = (value: boolean): Buffer => tlv(TAG.BOOLEAN, Buffer.from([value ? 0xff : 0x00]));
export const octetString = (bytes: Buffer): Buffer => tlv(TAG.OCTET_STRING, bytes);
export const utf8String = (text: string): Buffer => tlv(TAG.UTF8_STRING, Buffer.from(text, 'utf8'));

/** A non-negative INTEGER from its big-endian magnitude (a leading 0x00 added when the top bit is set, extra zeros dropped). */
export const unsignedInteger = (magnitude: Buffer): Buffer => {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const body = trimmed.length === 0 ? Buffer.from([0]) : (trimmed[0]! & 0x80) !== 0 ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed;
  return tlv(TAG.INTEGER, body);
};

export const smallInteger = (value: number): Buffer => {
  if (!Number.isInteger(value) || value < 0 || value > 0x7fffffff) throw new RangeError(`smallInteger: ${value} is not 0…2^31-1`);
  const bytes: number[] = [];
  for (let rest = value; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return unsignedInteger(Buffer.from(bytes));
};

/** OBJECT IDENTIFIER from dotted form, e.g. `2.5.4.3`. */
export const oid = (dotted: string): Buffer => {
  const arcs = dotted.split('.').map((arc) => {
    if (!/^\d+$/.test(arc)) throw new Error(`oid: "${dotted}" is not dotted decimal`);
    return Number(arc);
  });
  if (arcs.length < 2 || arcs[0]! > 2) throw new Error(`oid: "${dotted}" needs at least two arcs, the first 0, 1 or 2`);
  const bytes: number[] = [];
  const push = (arc: number): void => {
    const groups = [arc & 0x7f];
    for (let rest = Math.floor(arc / 128); rest > 0; rest = Math.floor(rest / 128)) groups.unshift(0x80 | (rest & 0x7f));
    bytes.push(...groups);
  };
  push(arcs[0]! * 40 + arcs[1]!);
  for (const arc of arcs.slice(2)) push(arc);
  return tlv(TAG.OID, Buffer.from(bytes));
};

/** A BIT STRING of whole bytes (a key, a signature). */
export const bitString = (bytes: Buffer): Buffer => tlv(TAG.BIT_STRING, Buffer.from([0]), bytes);

/** A named-bit BIT STRING (KeyUsage): bit 0 is the first byte's top bit; trailing zero bits dropped, as DER requires. */
export const namedBits = (bits: readonly number[]): Buffer => {
  if (bits.length === 0) return tlv(TAG.BIT_STRING, Buffer.from([0]));
  const highest = Math.max(...bits);
  const bytes = Buffer.alloc(Math.floor(highest / 8) + 1);
  for (const bit of bits) bytes[Math.floor(bit / 8)]! |= 0x80 >> bit % 8;
  const unused = 7 - (highest % 8);
  return tlv(TAG.BIT_STRING, Buffer.from([unused]), bytes);
};

const two = (n: number): string => String(n).padStart(2, '0');

/** A certificate's time: UTCTime for 1950–2049, GeneralizedTime otherwise (RFC 5280 4.1.2.5), to the second. */
export const time = (date: Date): Buffer => {
  const year = date.getUTCFullYear();
  const rest = `${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050) return tlv(TAG.UTC_TIME, Buffer.from(`${two(year % 100)}${rest}`, 'ascii'));
  return tlv(TAG.GENERALIZED_TIME, Buffer.from(`${String(year).padStart(4, '0')}${rest}`, 'ascii'));
};

/** `[n]` EXPLICIT: the whole encoding of the inner value inside a constructed context tag. */
export const explicit = (n: number, inner: Buffer): Buffer => tlv(0xa0 | n, inner);
/** `[n]` IMPLICIT on a primitive: the bytes under a context tag instead of their own. */
export const implicitPrimitive = (n: number, bytes: Buffer): Buffer => tlv(0x80 | n, bytes);

/** One element read back: its tag, its contents, and its whole encoding. */
export interface DerElement {
  readonly tag: number;
  readonly contents: Buffer;
  readonly encoded: Buffer;
}

/** The element at `offset` of `bytes`; throws on a truncated or indefinite-length encoding. */
export const readElement = (bytes: Buffer, offset = 0): DerElement => {
  if (offset + 2 > bytes.length) throw new Error('DER: truncated before a tag and length');
  const tag = bytes[offset]!;
  let length = bytes[offset + 1]!;
  let header = 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    if (count === 0 || count > 4) throw new Error('DER: indefinite or oversized length');
    if (offset + 2 + count > bytes.length) throw new Error('DER: truncated length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + bytes[offset + 2 + i]!;
    header += count;
  }
  const end = offset + header + length;
  if (end > bytes.length) throw new Error('DER: contents run past the end');
  return { tag, contents: bytes.subarray(offset + header, end), encoded: bytes.subarray(offset, end) };
};

/** The children of a constructed element (a SEQUENCE or SET). */
export const children = (element: DerElement): DerElement[] => {
  const out: DerElement[] = [];
  for (let offset = 0; offset < element.contents.length; ) {
    const child = readElement(element.contents, offset);
    out.push(child);
    offset += child.encoded.length;
  }
  return out;
};
