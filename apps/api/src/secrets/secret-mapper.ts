/**
 * Secrets ↔ Docker's shapes: a SecretSpec to create becomes Shoal's name, labels and bytes
 * (or a 400 naming the field), an update's SecretSpec is checked against the secret (only
 * the labels may change: Data, when sent, must be the secret's own bytes, as SwarmKit
 * checks — what `docker stack deploy` sends for a secret that exists), and a Secret becomes
 * Docker's Secret object — never with its data.
 */
import { MAX_SECRET_BYTES } from '@shoal/contracts';
import type { SecretSpec } from '@shoal/contracts';
import type { Secret } from '@shoal/domain';
import { SpecError } from '@shoal/docker-api';
import type { DockerMeta } from '@shoal/docker-api';
import { labelsOf, nameProblem } from '../configs/config-mapper';

export interface DockerSecret extends DockerMeta {
  readonly ID: string;
  readonly Spec: { readonly Name: string; readonly Labels: Record<string, string> };
}

/** A secret create or update body, decoded (SECRET_SPEC). */
export interface DockerSecretBody {
  readonly Name?: string;
  readonly Labels?: Record<string, string>;
  /** base64, checked by the decode */
  readonly Data?: string;
  readonly Driver?: { readonly Name?: string } | null;
  readonly Templating?: { readonly Name?: string } | null;
}

const ONLY_LABELS = 'only updates to Labels are allowed';

const refuseDrivers = (body: DockerSecretBody): void => {
  if (body.Driver) throw new SpecError('Driver', 'secret store drivers are not supported by Shoal: it keeps every secret itself, sealed');
  if (body.Templating) throw new SpecError('Templating', 'templated secrets are not supported by Shoal: a secret is given to tasks as it is');
};

/** `docker secret create`: a name, the data (1 byte to MAX_SECRET_BYTES, as swarmkit), labels. */
export const fromDockerSecretCreate = (body: DockerSecretBody): { spec: SecretSpec; data: Buffer } => {
  const problem = nameProblem('secret', body.Name);
  if (problem) throw new SpecError('Name', problem);
  refuseDrivers(body);
  const data = Buffer.from(body.Data ?? '', 'base64');
  // swarmkit's words.
  const rule = `secret data must be larger than 0 and less than ${MAX_SECRET_BYTES} bytes`;
  if (data.length === 0) throw new SpecError('Data', `${rule}: this one is empty`);
  if (data.length >= MAX_SECRET_BYTES) throw new SpecError('Data', `${rule}: this one is ${data.length} bytes`);
  return { spec: { name: body.Name!, ...labelsOf(body.Labels) }, data };
};

/**
 * A secret update: the whole spec, of which only the labels may differ. `sameData` says
 * whether data sent is the secret's own (it opens the sealed bytes to compare).
 */
export const fromDockerSecretUpdate = async (body: DockerSecretBody, secret: Secret, sameData: (data: Buffer) => Promise<boolean>): Promise<SecretSpec> => {
  refuseDrivers(body);
  const { name } = secret.spec;
  if (body.Name !== name) throw new SpecError('Name', `${ONLY_LABELS}: secret ${name} cannot be renamed to ${body.Name}`);
  if (body.Data !== undefined) {
    const data = Buffer.from(body.Data, 'base64');
    const same = await sameData(data).finally(() => data.fill(0));
    if (!same) throw new SpecError('Data', `${ONLY_LABELS}: the data of secret ${name} cannot change (create a new secret and point the service at it)`);
  }
  return { name, ...labelsOf(body.Labels) };
};

export const toDockerSecret = (secret: Secret): DockerSecret => ({
  ID: secret.id,
  Version: { Index: secret.version },
  CreatedAt: secret.createdAt,
  UpdatedAt: secret.updatedAt,
  Spec: { Name: secret.spec.name, Labels: { ...(secret.spec.labels ?? {}) } },
});
