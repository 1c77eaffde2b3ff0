/** `--name value` options of a benchmark, with defaults and a clear error for a bad value. */
export const intOption = (argv: readonly string[], name: string, fallback: number): number => {
  const at = argv.indexOf(`--${name}`);
  if (at < 0) return fallback;
  const raw = argv[at + 1] ?? '';
  const value = Number(raw.replace(/_/g, ''));
  if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`--${name} expects a positive whole number, not "${raw}"`);
  return value;
};

/** `--name 1,2,3`: positive whole numbers separated by commas. */
export const intListOption = (argv: readonly string[], name: string, fallback: readonly number[]): number[] => {
  const at = argv.indexOf(`--${name}`);
  if (at < 0) return [...fallback];
  const raw = argv[at + 1] ?? '';
  const values = raw.split(',').map((v) => Number(v.trim().replace(/_/g, '')));
  if (values.some((v) => !Number.isSafeInteger(v) || v <= 0)) throw new Error(`--${name} expects positive whole numbers separated by commas (e.g. 500,1000), not "${raw}"`);
  return values;
};
