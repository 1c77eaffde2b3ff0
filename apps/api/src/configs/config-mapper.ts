/**
 * Configs ↔ Docker's shapes: a ConfigSpec to create becomes Shoal's (or a 400 naming the
 * field), an update's ConfigSpec is checked against the config (only the labels may
 * change), and a Config becomes Docker's Config object — with its data, which configs,
 * unlike secrets, show.
 */
import { MAX_CONFIG_BYTES, base64DecodedLength } from '@shoal/contracts';
import type { ConfigSpec } from '@shoal/contracts';
import type { Config } from '@shoal/domain';
import type { DockerMeta } from '../docker/docker-types';
import { SpecError } from '../docker/spec-error';
import { sameBytes } from './config-data';
import type { ConfigSpecDto } from './config-spec.dto';

export interface DockerConfigSpec {
  readonly Name: string;
  readonly Labels: Record<string, string>;
  /** base64 */
  readonly Data: string;
}

export interface DockerConfig extends DockerMeta {
  readonly ID: string;
  readonly Spec: DockerConfigSpec;
}

const ONLY_LABELS = 'only updates to labels are allowed';

const refuseTemplating = (body: ConfigSpecDto): void => {
  if (body.Templating !== undefined && body.Templating !== null) {
    throw new SpecError('Templating', 'templated configs are not supported by Shoal: a config is given to tasks as it is');
  }
};

const labelsOf = (labels: Record<string, unknown> | undefined): { labels?: Record<string, string> } => {
  if (!labels || Object.keys(labels).length === 0) return {};
  for (const [key, value] of Object.entries(labels)) {
    if (typeof value !== 'string') throw new SpecError(`Labels.${key}`, 'a label value must be a string');
  }
  return { labels: { ...(labels as Record<string, string>) } };
};

/** `docker config create`: a name, the data (1 byte to MAX_CONFIG_BYTES, as swarmkit), labels. */
export const fromDockerConfigCreate = (body: ConfigSpecDto): ConfigSpec => {
  refuseTemplating(body);
  const data = body.Data ?? '';
  const size = base64DecodedLength(data);
  // swarmkit's words.
  const rule = `config data must be larger than 0 and less than ${MAX_CONFIG_BYTES + 1} bytes`;
  if (size === 0) throw new SpecError('Data', `${rule}: this one is empty`);
  if (size > MAX_CONFIG_BYTES) throw new SpecError('Data', `${rule}: this one is ${size} bytes`);
  return { name: body.Name, ...labelsOf(body.Labels), data };
};

/**
 * A config update (`docker stack deploy` sends one for every config that exists): the
 * whole spec, of which only the labels may differ; data left out is the config's own.
 */
export const fromDockerConfigUpdate = (body: ConfigSpecDto, config: Config): ConfigSpec => {
  refuseTemplating(body);
  const { name, data } = config.spec;
  if (body.Name !== name) throw new SpecError('Name', `${ONLY_LABELS}: config ${name} cannot be renamed to ${body.Name}`);
  if (body.Data !== undefined && body.Data !== null && !sameBytes(body.Data, data)) {
    throw new SpecError('Data', `${ONLY_LABELS}: the data of config ${name} cannot change (create a new config and point the service at it)`);
  }
  return { name, ...labelsOf(body.Labels), data };
};

export const toDockerConfig = (config: Config): DockerConfig => ({
  ID: config.id,
  Version: { Index: config.version },
  CreatedAt: config.createdAt,
  UpdatedAt: config.updatedAt,
  Spec: { Name: config.spec.name, Labels: { ...(config.spec.labels ?? {}) }, Data: config.spec.data },
});
