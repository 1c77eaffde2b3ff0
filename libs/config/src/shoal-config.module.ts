/**
 * The settings in a Nest app: @nestjs/config's ConfigModule, global, validating the
 * environment through shoalSettings when the root module is built, so a bad value stops
 * the app before any provider runs. No .env file is read: the environment is the process's.
 * A provider takes the settings with `config.get(SHOAL_SETTINGS, { infer: true })`.
 */
import { ConfigModule } from '@nestjs/config';
import type { DynamicModule } from '@nestjs/common';
import { shoalSettings } from './shoal-settings';
import type { ShoalSettings } from './shoal-settings';

/** The ConfigService key the settings are under (not a variable: nothing is written back to the environment). */
export const SHOAL_SETTINGS = 'shoal';

/** What the ConfigService holds, for `ConfigService<ShoalConfiguration, true>`. */
export interface ShoalConfiguration {
  readonly [SHOAL_SETTINGS]: ShoalSettings;
}

export const validateShoalEnvironment = (env: Record<string, unknown>): ShoalConfiguration => ({ [SHOAL_SETTINGS]: shoalSettings(env) });

export const ShoalConfigModule = {
  forRoot: (): Promise<DynamicModule> => ConfigModule.forRoot({ isGlobal: true, ignoreEnvFile: true, validate: validateShoalEnvironment }),
};
