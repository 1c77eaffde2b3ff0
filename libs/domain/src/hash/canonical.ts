/**
 * Canonical JSON: object keys sorted, no whitespace, undefined fields left out. Two
 * values that mean the same thing serialize to the same bytes, in any process.
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    return value === undefined ? 'null' : JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const field = record[key];
    if (field !== undefined) parts.push(`${JSON.stringify(key)}:${canonicalJson(field)}`);
  }
  return `{${parts.join(',')}}`;
};
