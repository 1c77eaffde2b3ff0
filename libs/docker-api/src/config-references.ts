/**
 * The configs a service's containers are given: Docker's ConfigReference
 * (`TaskTemplate.ContainerSpec.Configs`) ↔ Shoal's, with the docker CLI's defaults (uid and gid
 * "0", mode 0444) and Docker's rules (an id and a name, a file target, no two configs at one
 * target). Runtime targets (credential specs) are refused: Shoal gives configs as files.
 */
import { DEFAULT_CONFIG_MODE, MAX_FILE_MODE } from '@shoal/contracts';
import type { ConfigFileTarget, ConfigReference } from '@shoal/contracts';
import type { DockerConfigReference, DockerFileTarget } from './docker-types';
import { SpecError } from './spec-error';

const FIELD = 'TaskTemplate.ContainerSpec.Configs';

const fromDockerConfigReference = (ref: DockerConfigReference, field: string): ConfigReference => {
  if (ref.Runtime !== undefined && ref.Runtime !== null) {
    throw new SpecError(`${field}.Runtime`, 'runtime targets (credential specs) are not supported by Shoal: give the config a File target');
  }
  const configId = ref.ConfigID?.trim();
  if (!configId) throw new SpecError(`${field}.ConfigID`, 'a config id is required (the docker CLI resolves config names to ids)');
  const configName = ref.ConfigName?.trim();
  if (!configName) throw new SpecError(`${field}.ConfigName`, 'a config name is required');
  return { configId, configName, file: fileTargetOf(ref.File, field) };
};

/**
 * A reference's file target, with the defaults the docker CLI sends (uid and gid "0", mode
 * 0444; the engine itself stores "", "" and 0 for a target sent without them, a pinned
 * difference: the executors need an owner and a mode), or a 400 naming the field.
 */
export const fileTargetOf = (file: DockerFileTarget | null | undefined, field: string): ConfigFileTarget => {
  if (!file) throw new SpecError(`${field}.File`, 'a file target is required');
  const name = file.Name?.trim();
  if (!name) throw new SpecError(`${field}.File.Name`, 'a target file name is required');
  const mode = file.Mode ?? DEFAULT_CONFIG_MODE;
  if (!Number.isInteger(mode) || mode < 0 || mode > MAX_FILE_MODE) {
    throw new SpecError(`${field}.File.Mode`, `${mode} is not a file mode (permission bits, 0 to 0o7777)`);
  }
  return { name, uid: file.UID || '0', gid: file.GID || '0', mode };
};

/** Docker's file target, as Shoal's. */
export const toDockerFileTarget = (file: ConfigFileTarget): DockerFileTarget => ({ Name: file.name, UID: file.uid, GID: file.gid, Mode: file.mode });

/**
 * Docker's references of one kind (configs or secrets) as Shoal's, each read by `read`;
 * undefined when there are none. Two at one target are refused in SwarmKit's words.
 */
export const fromDockerFileReferences = <D, R extends { readonly file: ConfigFileTarget }>(
  refs: readonly D[] | null | undefined,
  kind: 'config' | 'secret',
  field: string,
  read: (ref: D, field: string) => R,
  nameOf: (ref: R) => string,
): R[] | undefined => {
  if (!refs || refs.length === 0) return undefined;
  const targets = new Map<string, string>();
  return refs.map((ref, index) => {
    const reference = read(ref, `${field}[${index}]`);
    const taken = targets.get(reference.file.name);
    if (taken !== undefined) {
      throw new SpecError(`${field}[${index}].File.Name`, `${kind} references '${taken}' and '${nameOf(reference)}' have a conflicting target: '${reference.file.name}'`);
    }
    targets.set(reference.file.name, nameOf(reference));
    return reference;
  });
};

/** Docker's config references as Shoal's; undefined when there are none. */
export const fromDockerConfigReferences = (refs: readonly DockerConfigReference[] | null | undefined): ConfigReference[] | undefined =>
  fromDockerFileReferences(refs, 'config', FIELD, fromDockerConfigReference, (ref) => ref.configName);

export const toDockerConfigReferences = (refs: readonly ConfigReference[]): DockerConfigReference[] =>
  refs.map((ref) => ({
    File: toDockerFileTarget(ref.file),
    ConfigID: ref.configId,
    ConfigName: ref.configName,
  }));
