/**
 * The secrets a service's containers are given: Docker's SecretReference
 * (`TaskTemplate.ContainerSpec.Secrets`) ↔ Shoal's, with the docker CLI's defaults and Docker's rules as for
 * configs (config-references.ts): an id and a name, a file target (relative: under
 * /run/secrets), no two secrets at one target.
 */
import type { SecretReference } from '@shoal/contracts';
import { fileTargetOf, fromDockerFileReferences, toDockerFileTarget } from './config-references';
import type { DockerSecretReference } from './docker-types';
import { SpecError } from './spec-error';

const FIELD = 'TaskTemplate.ContainerSpec.Secrets';

const fromDockerSecretReference = (ref: DockerSecretReference, field: string): SecretReference => {
  const secretId = ref.SecretID?.trim();
  if (!secretId) throw new SpecError(`${field}.SecretID`, 'a secret id is required (the docker CLI resolves secret names to ids)');
  const secretName = ref.SecretName?.trim();
  if (!secretName) throw new SpecError(`${field}.SecretName`, 'a secret name is required');
  return { secretId, secretName, file: fileTargetOf(ref.File, field) };
};

/** Docker's secret references as Shoal's; undefined when there are none. */
export const fromDockerSecretReferences = (refs: readonly DockerSecretReference[] | null | undefined): SecretReference[] | undefined =>
  fromDockerFileReferences(refs, 'secret', FIELD, fromDockerSecretReference, (ref) => ref.secretName);

export const toDockerSecretReferences = (refs: readonly SecretReference[]): DockerSecretReference[] =>
  refs.map((ref) => ({ File: toDockerFileTarget(ref.file), SecretID: ref.secretId, SecretName: ref.secretName }));
