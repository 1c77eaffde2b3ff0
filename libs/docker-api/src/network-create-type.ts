/**
 * Docker's NetworkCreateRequest as its Go type declares it (moby's api/types, API 1.41: the
 * name beside types.NetworkCreate), for `goDecodeAs`: the body of `POST /networks/create`,
 * and its schema in `/openapi.json`. What Shoal accepts of it is network-mapper.ts's to say.
 */
import { go } from './go-types';
import type { GoType } from './go-types';

const { str, bool, slice, map, struct } = go;

const options = map(str());

export const NETWORK_CREATE: GoType = struct('types.NetworkCreateRequest', {
  Name: str(),
  CheckDuplicate: bool(),
  Driver: str(),
  Scope: str(),
  EnableIPv4: bool(),
  EnableIPv6: bool(),
  IPAM: struct('network.IPAM', {
    Driver: str(),
    Options: options,
    Config: slice(struct('network.IPAMConfig', { Subnet: str(), IPRange: str(), Gateway: str(), AuxiliaryAddresses: options })),
  }),
  Internal: bool(),
  Attachable: bool(),
  Ingress: bool(),
  ConfigOnly: bool(),
  ConfigFrom: struct('network.ConfigReference', { Network: str() }),
  Options: options,
  Labels: options,
});
