/**
 * The metric names a PromQL expression reads: what is left once strings, label matchers,
 * ranges and the label lists of by/without/on/ignoring/group_* are gone, less function
 * calls, keywords and numbers. Enough for the dashboard's queries, not a PromQL parser.
 */
const KEYWORDS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'atan2', 'inf', 'nan']);

export const promqlMetricNames = (expr: string): string[] => {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+\d+[smhdwy]/g, ' ');
  const names: string[] = [];
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const name = match[0];
    const after = stripped.slice((match.index ?? 0) + name.length);
    if (/^\s*\(/.test(after) || KEYWORDS.has(name.toLowerCase())) continue;
    if (!names.includes(name)) names.push(name);
  }
  return names;
};
