/**
 * The settings of a process, read from its environment through the one declaration
 * (ShoalEnvironment): each declared variable taken (trimmed; blank is unset), converted,
 * checked, defaulted. Every bad value is found at once and refused in one message that
 * names each variable and says what to set.
 */
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { declaredSettings } from './setting';
import { ShoalEnvironment } from './shoal-environment';

export type SettingName = keyof ShoalEnvironment & string;

/** The settings, defaults in place, and which of them the environment set. */
export type ShoalSettings = Readonly<ShoalEnvironment> & { readonly given: ReadonlySet<SettingName> };

/** A refused environment: `problems` has one line per bad variable. */
export class ConfigurationError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(
      problems.length === 1
        ? `bad setting: ${problems[0]}`
        : [`${problems.length} bad settings:`, ...problems.map((problem) => `  - ${problem}`)].join('\n'),
    );
    this.name = 'ConfigurationError';
  }
}

/** The declared variables `env` sets, as given: trimmed (but a password), blank ones left out. */
const declaredValues = (env: Readonly<Record<string, unknown>>): Record<string, string> => {
  const values: Record<string, string> = {};
  for (const [name, description] of declaredSettings()) {
    const raw = env[name];
    if (typeof raw !== 'string') continue;
    const value = description.untrimmed ? raw : raw.trim();
    if (value !== '') values[name] = value;
  }
  return values;
};

/** `env`'s settings, or a ConfigurationError listing every bad one. */
export const shoalSettings = (env: Readonly<Record<string, unknown>> = process.env): ShoalSettings => {
  const given = declaredValues(env);
  const settings = plainToInstance(ShoalEnvironment, given);
  const problems = validateSync(settings).map((error) => [...new Set(Object.values(error.constraints ?? {}))].join('; '));
  if (problems.length > 0) throw new ConfigurationError(problems);
  return Object.assign(settings, { given: new Set(Object.keys(given) as SettingName[]) });
};

/** Every declared default: what a process with none of the variables set runs with. */
export const defaultSettings = (): ShoalEnvironment => new ShoalEnvironment();
