/**
 * Docker's swarm.SecretSpec as its Go type declares it (moby's api/types/swarm, API 1.41),
 * for `goDecodeAs`: the body of `POST /secrets/create` and `/secrets/{id}/update`, and its
 * schema in `/openapi.json`. `Data` is a []byte: base64 in JSON.
 */
import { go } from './go-types';
import type { GoType } from './go-types';

const { str, bytes, map, struct } = go;

const driver = (): GoType => struct('swarm.Driver', { Name: str(), Options: map(str()) });

export const SECRET_SPEC: GoType = struct('swarm.SecretSpec', {
  Name: str(),
  Labels: map(str()),
  Data: bytes(),
  Driver: driver(),
  Templating: driver(),
});
