/**
 * What a setting says about itself beside its rules: its one-line meaning, the processes
 * that read it, and (where the default is not a plain value) how the default reads. The
 * docs' table (settings-table.ts) and the list of declared names come from here.
 */
export type ShoalProcess = 'api' | 'allocator' | 'orchestrator' | 'scheduler' | 'dispatcher' | 'reaper' | 'agent' | 'all-in-one' | 'cli';

/** The five control-plane components, each as `shoal run <component>`. */
export const COMPONENTS: readonly ShoalProcess[] = ['allocator', 'orchestrator', 'scheduler', 'dispatcher', 'reaper'];

/** Every process that opens the log. */
export const LOG_READERS: readonly ShoalProcess[] = ['api', ...COMPONENTS, 'all-in-one', 'cli'];

export interface SettingDescription {
  /** One line: what it is for. */
  readonly meaning: string;
  readonly readBy: readonly ShoalProcess[];
  /** The default as the docs show it, where it is not the property's value (derived, or none). */
  readonly shownDefault?: string;
  /** Taken as it is, spaces included (a password); any other value is trimmed. */
  readonly untrimmed?: boolean;
}

const described = new Map<string, SettingDescription>();

/** Declares the property as a setting: its name is the variable's. */
export const Setting =
  (description: SettingDescription): PropertyDecorator =>
  (_target, property) => {
    described.set(String(property), description);
  };

/** Every declared setting, in the order of declaration. */
export const declaredSettings = (): ReadonlyMap<string, SettingDescription> => described;
