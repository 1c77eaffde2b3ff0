/**
 * The methods the API's routes serve for a path, read from the express router the
 * request went through (`req.app.router`): its route layers, each a path pattern and the
 * methods registered on it (GET brings HEAD, as express answers HEAD with it).
 */
import type { IncomingMessage } from 'node:http';

interface RouteLayer {
  readonly route?: { _methods(): string[] };
  match(path: string): unknown;
}

const routeLayers = (req: IncomingMessage): readonly RouteLayer[] => {
  const router = (req as IncomingMessage & { app?: { router?: { stack?: unknown } } }).app?.router;
  return Array.isArray(router?.stack) ? (router.stack as RouteLayer[]) : [];
};

/** The methods some route serves at `path`, sorted; none when no route has the path. */
export const routeMethods = (req: IncomingMessage, path: string): string[] => {
  const methods = new Set<string>();
  for (const layer of routeLayers(req)) {
    if (!layer.route || !layer.match(path)) continue;
    for (const method of layer.route._methods()) if (method !== '*') methods.add(method.toUpperCase());
  }
  return [...methods].sort();
};
