/**
 * Docker's swarm.ConfigSpec as its Go type declares it (moby's api/types/swarm, API 1.41),
 * for `goDecodeAs`: the body of `POST /configs/create` and `/configs/{id}/update`, and its
 * schema in `/openapi.json`. `Data` is a []byte: base64 in JSON.
 */
import { go } from './go-types';
import type { GoType } from './go-types';

const { str, bytes, map, struct } = go;

export const CONFIG_SPEC: GoType = struct('swarm.ConfigSpec', {
  Name: str(),
  Labels: map(str()),
  Data: bytes(),
  Templating: struct('swarm.Driver', { Name: str(), Options: map(str()) }),
});
