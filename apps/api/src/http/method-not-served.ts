/**
 * A request whose path a route serves, but not with its method. Docker's engine answers
 * it as it answers an unknown path: its router (moby daemon/server/server.go, CreateMux)
 * sets gorilla/mux's MethodNotAllowedHandler to its notFoundHandler, so `TRACE /services`
 * is 404 "page not found" there. Docker's routes here answer 404 too; Shoal's own surface
 * (`/shoal/v1`, health, metrics, the OpenAPI document) answers 405, as HTTP has it. Both
 * name the methods the path serves, in the message and in `Allow`.
 */

export interface MethodNotServed {
  readonly status: 404 | 405;
  readonly message: string;
  /** The `Allow` header. */
  readonly allow: string;
}

const SHOAL_PATHS = new Set(['/healthz', '/readyz', '/statez', '/metrics', '/openapi.json']);

/** Shoal's own surface, as opposed to Docker's Engine API. */
export const isShoalSurface = (path: string): boolean => path === '/shoal' || path.startsWith('/shoal/') || SHOAL_PATHS.has(path);

/**
 * The answer for `method` on `path` (as the client sent it: `url`), when the path is served
 * with `allowed` methods; undefined when no route has the path (a 404 as any other).
 */
export const methodNotServed = (method: string, url: string, path: string, allowed: readonly string[]): MethodNotServed | undefined => {
  if (allowed.length === 0) return undefined;
  const allow = allowed.join(', ');
  return { status: isShoalSurface(path) ? 405 : 404, message: `${method} ${url.split('?')[0] ?? url}: ${path} answers ${allow}`, allow };
};
