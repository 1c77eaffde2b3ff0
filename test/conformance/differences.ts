/**
 * A structural comparison of two normalised JSON answers: every path where they differ, as
 * `Spec.Mode.Replicated.Replicas: engine 2, shoal 3`, in a stable order. No difference: [].
 */
const show = (value: unknown): string => (value === undefined ? 'absent' : JSON.stringify(value));

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export const differences = (engine: unknown, shoal: unknown, path = ''): string[] => {
  if (isPlainObject(engine) && isPlainObject(shoal)) {
    const keys = [...new Set([...Object.keys(engine), ...Object.keys(shoal)])].sort();
    return keys.flatMap((key) => differences(engine[key], shoal[key], path ? `${path}.${key}` : key));
  }
  if (Array.isArray(engine) && Array.isArray(shoal) && engine.length === shoal.length) {
    return engine.flatMap((item, index) => differences(item, shoal[index], `${path}[${index}]`));
  }
  if (JSON.stringify(engine) === JSON.stringify(shoal)) return [];
  return [`${path || '(body)'}: engine ${show(engine)}, shoal ${show(shoal)}`];
};
