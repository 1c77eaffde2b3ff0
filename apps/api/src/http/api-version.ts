/**
 * Docker's API versioning: every path may carry a `/v1.NN` prefix (or none). The prefix
 * is stripped before routing; a version newer than this API's is refused as Docker does.
 */
export const API_VERSION = '1.50';
export const MIN_API_VERSION = '1.24';

const PREFIX = /^\/v(\d+)\.(\d+)(?=\/|$|\?)/;

export const compareVersions = (a: string, b: string): number => {
  const [amaj = 0, amin = 0] = a.split('.').map(Number);
  const [bmaj = 0, bmin = 0] = b.split('.').map(Number);
  return amaj - bmaj || amin - bmin;
};

/** Whether the client asked at `version` or later; a request without a prefix asks at this API's own version. */
export const versionAtLeast = (version: string | undefined, least: string): boolean => compareVersions(version ?? API_VERSION, least) >= 0;

export type VersionedUrl =
  | { readonly ok: true; readonly url: string; readonly version?: string }
  | { readonly ok: false; readonly message: string };

/** `/v1.47/services?x=1` → `/services?x=1` (version 1.47); a path without a prefix is unchanged. */
export const stripApiVersion = (url: string): VersionedUrl => {
  const match = PREFIX.exec(url);
  if (!match) return { ok: true, url };
  const version = `${match[1]}.${match[2]}`;
  if (compareVersions(version, API_VERSION) > 0) {
    return { ok: false, message: `client version ${version} is too new. Maximum supported API version is ${API_VERSION}` };
  }
  if (compareVersions(version, MIN_API_VERSION) < 0) {
    return { ok: false, message: `client version ${version} is too old. Minimum supported API version is ${MIN_API_VERSION}, please upgrade your client to a newer version` };
  }
  const rest = url.slice(match[0].length);
  return { ok: true, url: rest.startsWith('/') ? rest : `/${rest}`, version };
};
