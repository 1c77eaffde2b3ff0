/**
 * What every request goes through before Nest routes it, as plain middleware: the
 * `/v1.NN` prefix is stripped, access is decided (socket, a verified client certificate, or a bearer token over TCP),
 * and the JSON body is read (malformed or oversized → 400 in Docker's error shape). Each
 * Docker endpoint then decodes its body into Docker's Go type, as Go decodes it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { decideAccess } from '../access/access-policy';
import { verifiedClientRole } from '../access/client-certificate';
import type { TokenRegistry } from '../access/tokens';
import { API_VERSION, stripApiVersion } from './api-version';
import { sendDockerError } from './docker-error';
import { readJsonBody } from './json-body';

/** Connections accepted on the unix socket. */
const socketConnections = new WeakSet<Socket>();
export const markSocketConnection = (socket: Socket): void => {
  socketConnections.add(socket);
};

/** The API version each request's `/v1.NN` prefix named (none: the API's own). */
const requestedVersions = new WeakMap<IncomingMessage, string>();
export const requestedApiVersion = (req: IncomingMessage): string | undefined => requestedVersions.get(req);

/** Room for the largest config Docker allows (1000 KiB, 1.33 MiB in base64) and its spec. */
export const MAX_BODY_BYTES = 2 * 1024 * 1024;

type Next = () => void;
type Request = IncomingMessage & { body?: unknown };

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Shoal's own surface, whose bodies are its own JSON, not Docker's. */

export const installHttpPipeline = (app: INestApplication, registry: TokenRegistry): void => {
  app.use((req: Request, res: ServerResponse, next: Next) => {
    // What a client negotiates by, on every answer (a refused version's too), as Docker sends them.
    res.setHeader('API-Version', API_VERSION);
    res.setHeader('OSType', 'linux');
    const versioned = stripApiVersion(req.url ?? '/');
    if (!versioned.ok) return sendDockerError(res, 400, versioned.message);
    req.url = versioned.url;
    if (versioned.version) requestedVersions.set(req, versioned.version);
    const certificate = verifiedClientRole(req.socket);
    const decision = decideAccess(registry, {
      transport: socketConnections.has(req.socket) ? 'socket' : 'tcp',
      ...(certificate ? { certificate } : {}),
      method: req.method ?? 'GET',
      path: versioned.url.split('?')[0] ?? '/',
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    if (!decision.allowed) return sendDockerError(res, decision.status, decision.message);
    next();
  });
  app.use((req: Request, res: ServerResponse, next: Next) => {
    if (BODILESS.has(req.method ?? 'GET')) return next();
    void readJsonBody(req, MAX_BODY_BYTES).then((result) => {
      if (!result.ok) return sendDockerError(res, 400, result.message);
      // Parsed only: each Docker endpoint decodes its body into Docker's Go type (@shoal/docker-api's goDecodeAs).
      req.body = result.body;
      next();
    });
  });
};
