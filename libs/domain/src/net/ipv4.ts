/**
 * An IPv4 address as an unsigned 32-bit number: "10.0.1.5" is 0x0a000105. The one reading
 * of a dotted quad in Shoal: four decimal octets of one to three digits, each at most 255,
 * nothing around them.
 */

/** "10.0.1.5" → its number, or undefined when it is not a dotted-quad IPv4 address. */
export const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0;
  for (const part of parts) {
    if (!/^\d{1,3}$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = value * 256 + octet;
  }
  return value;
};

/** 0x0a000105 → "10.0.1.5". */
export const formatIpv4 = (value: number): string =>
  [value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255].join('.');
