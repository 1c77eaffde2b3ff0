/**
 * An IP address of either family as 16 bytes, parsed by hand (the core may not use Node's
 * `net`). IPv4 is held IPv4-mapped (::ffff:a.b.c.d), so "10.0.0.1" and "::ffff:10.0.0.1"
 * are the same address.
 */
import { parseIpv4 } from './ipv4';

export type IpBytes = readonly number[];

const ipv4Bytes = (text: string): number[] | undefined => {
  const value = parseIpv4(text);
  return value === undefined ? undefined : [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255];
};

const mapped = (v4: readonly number[]): number[] => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4];

const parseIpv6 = (text: string): number[] | undefined => {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === '') return [];
    const out: number[] = [];
    const pieces = part.split(':');
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] as string;
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = ipv4Bytes(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (!/^[0-9a-fA-F]{1,4}$/.test(piece)) return undefined;
        out.push(parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groups(halves[0] as string);
  const tail = halves.length === 2 ? groups(halves[1] as string) : [];
  if (!head || !tail) return undefined;
  let words: number[];
  if (halves.length === 2) {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    words = [...head, ...new Array<number>(missing).fill(0), ...tail];
  } else words = head;
  if (words.length !== 8) return undefined;
  return words.flatMap((w) => [w >> 8, w & 0xff]);
};

/** The 16 bytes of an IPv4 or IPv6 address (spaces around it ignored), or undefined when `text` is not one. */
export const parseIp = (text: string): IpBytes | undefined => {
  const trimmed = text.trim();
  if (trimmed.includes(':')) return parseIpv6(trimmed);
  const v4 = ipv4Bytes(trimmed);
  return v4 ? mapped(v4) : undefined;
};

/** A host's address with or without a port: "10.0.0.5", "10.0.0.5:4242", "[2001:db8::1]:4242". */
export const parseHostAddress = (addr: string | undefined): IpBytes | undefined => {
  if (!addr) return undefined;
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(addr);
  if (bracketed) return parseIp(bracketed[1] as string);
  const withPort = /^([^:]+):\d+$/.exec(addr);
  if (withPort) return parseIp(withPort[1] as string);
  return parseIp(addr);
};

export const ipEquals = (a: IpBytes, b: IpBytes): boolean => a.every((byte, i) => byte === b[i]);
