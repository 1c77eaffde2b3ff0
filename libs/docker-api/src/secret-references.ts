/**
 * The secrets a service's containers are given: Docker's SecretReference
 * (`TaskTemplate.ContainerSpec.Secrets`) ↔ Shoal's, with Docker's defaults and rules as for
 * configs (config-references.ts): an id and a name, a file target (relative: under
 * /run/secrets), no two secrets at one target.
 */
import type { SecretReference } from '@shoal/contracts';
import { fileTargetOf, toDockerFileTarget } from './config-references';
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

/** Docker's references as Shoal's; undefined when there are none. */
export const fromDockerSecretReferences = (refs: readonly DockerSecretReference[] | null | undefined): SecretReference[] | undefined => {
  if (!refs || refs.length === 0) return undefined;
  const targets = new Map<string, string>();
  return refs.map((ref, index) => {
    const secret = fromDockerSecretReference(ref, `${FIELD}[${index}]`);
    const taken = targets.get(secret.file.name);
    if (taken !== undefined) {
      throw new SpecError(`${FIELD}[${index}].File.Name`, `secret references '${taken}' and '${secret.secretName}' have a conflicting target: '${secret.file.name}'`);
    }
    targets.set(secret.file.name, secret.secretName);
    return secret;
  });
};

export const toDockerSecretReferences = (refs: readonly SecretReference[]): DockerSecretReference[] =>
  refs.map((ref) => ({ File: toDockerFileTarget(ref.file), SecretID: ref.secretId, SecretName: ref.secretName }));
