/** `--name value` options of a benchmark, with defaults and a clear error for a bad value. */

/** The value after `--name`; undefined when the option is not given. */
const rawOption = (argv: readonly string[], name: string): string | undefined => {
  const at = argv.indexOf(`--${name}`);
  return at < 0 ? undefined : (argv[at + 1] ?? '');
};

/** A whole number as written on a command line (`100_000` too); NaN when it is none. */
const wholeNumber = (raw: string): number => Number(raw.replace(/_/g, ''));

const isPositiveWhole = (value: number): boolean => Number.isSafeInteger(value) && value > 0;

export const intOption = (argv: readonly string[], name: string, fallback: number): number => {
  const raw = rawOption(argv, name);
  if (raw === undefined) return fallback;
  const value = wholeNumber(raw);
  if (!isPositiveWhole(value)) throw new Error(`--${name} expects a positive whole number, not "${raw}"`);
  return value;
};

/** `--name 1,2,3`: positive whole numbers separated by commas. */
export const intListOption = (argv: readonly string[], name: string, fallback: readonly number[]): number[] => {
  const raw = rawOption(argv, name);
  if (raw === undefined) return [...fallback];
  const values = raw.split(',').map((v) => wholeNumber(v.trim()));
  if (!values.every(isPositiveWhole)) throw new Error(`--${name} expects positive whole numbers separated by commas (e.g. 500,1000), not "${raw}"`);
  return values;
};
