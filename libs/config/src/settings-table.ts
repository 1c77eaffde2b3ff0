/** docs/configuration.md's table, from the declaration: one row a variable. */
import { declaredSettings } from './setting';
import { defaultSettings } from './shoal-settings';

const shown = (value: unknown): string => {
  if (value === undefined) return 'none';
  if (Array.isArray(value)) return value.length === 0 ? 'none' : `\`${value.join(',')}\``;
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  return `\`${String(value)}\``;
};

export const settingsTable = (): string => {
  const defaults = defaultSettings() as unknown as Record<string, unknown>;
  const rows = [...declaredSettings()].map(
    ([name, { meaning, readBy, shownDefault }]) => `| \`${name}\` | ${shownDefault ?? shown(defaults[name])} | ${meaning} | ${readBy.join(', ')} |`,
  );
  return ['| variable | default | meaning | read by |', '|---|---|---|---|', ...rows].join('\n');
};
