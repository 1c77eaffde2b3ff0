/**
 * Configs ↔ Docker's shapes: a ConfigSpec to create becomes Shoal's (or a 400 naming the
 * field), an update's ConfigSpec is checked against the config (only the labels may
 * change), and a Config becomes Docker's Config object — with its data, which configs,
 * unlike secrets, show.
 */
import { CONFIG_NAME_PATTERN, MAX_CONFIG_BYTES, MAX_CONFIG_NAME_LENGTH, base64DecodedLength } from '@shoal/contracts';
import type { ConfigSpec } from '@shoal/contracts';
import type { Config } from '@shoal/domain';
import { SpecError } from '@shoal/docker-api';
import type { DockerMeta } from '@shoal/docker-api';
import { sameBytes } from './config-data';


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

/** A config create or update body, decoded (CONFIG_SPEC). */
export interface DockerConfigBody {
  readonly Name?: string;
  readonly Labels?: Record<string, string>;
  /** base64, checked by the decode */
  readonly Data?: string;
  readonly Templating?: unknown;
}

const ONLY_LABELS = 'only updates to labels are allowed';

/** Docker's reason for a config's (or a secret's: the same rule) name it refuses, or undefined for a good one. */
export const nameProblem = (kind: 'config' | 'secret', value: string | undefined): string | undefined => {
  if (value === undefined || value === '') return `a ${kind} name is required`;
  if (value.length > MAX_CONFIG_NAME_LENGTH || !CONFIG_NAME_PATTERN.test(value)) {
    return `"${value}" is not a valid ${kind} name: only ${MAX_CONFIG_NAME_LENGTH} [a-zA-Z0-9-_.] characters allowed, and the start and end character must be [a-zA-Z0-9]`;
  }
  return undefined;
};

const refuseTemplating = (body: DockerConfigBody): void => {
  if (body.Templating !== undefined) {
    throw new SpecError('Templating', 'templated configs are not supported by Shoal: a config is given to tasks as it is');
  }
};

/** The labels a spec keeps: none when there are none (a config's or a secret's). */
export const labelsOf = (labels: Readonly<Record<string, string>> | undefined): { labels?: Record<string, string> } =>
  labels && Object.keys(labels).length > 0 ? { labels: { ...labels } } : {};

/** `docker config create`: a name, the data (1 byte to MAX_CONFIG_BYTES, as swarmkit), labels. */
export const fromDockerConfigCreate = (body: DockerConfigBody): ConfigSpec => {
  const problem = nameProblem('config', body.Name);
  if (problem) throw new SpecError('Name', problem);
  refuseTemplating(body);
  const data = body.Data ?? '';
  const size = base64DecodedLength(data);
  // swarmkit's words.
  const rule = `config data must be larger than 0 and less than ${MAX_CONFIG_BYTES + 1} bytes`;
  if (size === 0) throw new SpecError('Data', `${rule}: this one is empty`);
  if (size > MAX_CONFIG_BYTES) throw new SpecError('Data', `${rule}: this one is ${size} bytes`);
  return { name: body.Name!, ...labelsOf(body.Labels), data };
};

/**
 * A config update (`docker stack deploy` sends one for every config that exists): the
 * whole spec, of which only the labels may differ; data left out is the config's own.
 */
export const fromDockerConfigUpdate = (body: DockerConfigBody, config: Config): ConfigSpec => {
  refuseTemplating(body);
  const { name, data } = config.spec;
  if (body.Name !== name) throw new SpecError('Name', `${ONLY_LABELS}: config ${name} cannot be renamed to ${body.Name}`);
  if (body.Data !== undefined && !sameBytes(body.Data, data)) {
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
