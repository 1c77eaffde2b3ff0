/** Sizes as people write them in flags: "8GiB", "512MiB", "2G", "1073741824". */

const UNITS: Readonly<Record<string, number>> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 2 ** 10,
  m: 1e6,
  mb: 1e6,
  mib: 2 ** 20,
  g: 1e9,
  gb: 1e9,
  gib: 2 ** 30,
  t: 1e12,
  tb: 1e12,
  tib: 2 ** 40,
};

export const parseByteSize = (text: string): number => {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match ? UNITS[(match[2] ?? '').toLowerCase()] : undefined;
  if (!match || unit === undefined) throw new Error(`expected a size like 8GiB, 512MiB or 2G, got "${text}"`);
  const bytes = Math.round(Number(match[1]) * unit);
  if (bytes <= 0) throw new Error(`a size must be more than zero, got "${text}"`);
  return bytes;
};
