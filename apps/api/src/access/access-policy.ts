/**
 * Who may do what, as a pure decision: a request's transport, its verified client
 * certificate's role or its Authorization header, its method and path → allowed, or
 * refused with 401 (who are you?) or 403 (not you).
 */
import type { CertificateRole } from './client-certificate';
import type { Role, TokenRegistry } from './tokens';
import { isConsoleShell } from '../console/console-shell';

export type Transport = 'socket' | 'tcp';

export type AccessDecision =
  | { readonly allowed: true; readonly role: Role }
  | { readonly allowed: false; readonly status: 401 | 403; readonly message: string };

const READ_METHODS = new Set(['GET', 'HEAD']);
const AUDIT_SURFACE = '/shoal/v1/audit';

/** An auditor reads, and uses the audit surface; everything else needs an operator. */
export const roleAllows = (role: Role, method: string, path: string): boolean =>
  role === 'operator' ||
  READ_METHODS.has(method.toUpperCase()) ||
  path === AUDIT_SURFACE ||
  path.startsWith(`${AUDIT_SURFACE}/`);

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export const decideAccess = (
  registry: TokenRegistry,
  request: {
    readonly transport: Transport;
    readonly authorization?: string;
    /** The role of a client certificate the TLS handshake verified (`--tlsverify`): it decides, as a token would. */
    readonly certificate?: CertificateRole;
    readonly method: string;
    readonly path: string;
  },
): AccessDecision => {
  // The socket's file mode is its access control, as Docker's own socket.
  if (request.transport === 'socket') return { allowed: true, role: 'operator' };
  // The console's page and script carry no data: a browser opens them before it can send a token.
  if (isConsoleShell(request.method, request.path)) return { allowed: true, role: 'auditor' };
  if (request.certificate) {
    const certificate = request.certificate;
    if (!certificate.granted) {
      return { allowed: false, status: 403, message: `forbidden: a client certificate of role ${certificate.unit ? `"${certificate.unit}"` : '(no OU)'} may not use the API (operator or auditor)` };
    }
    if (!roleAllows(certificate.role, request.method, request.path)) {
      return { allowed: false, status: 403, message: `forbidden: role ${certificate.role} may not ${request.method.toUpperCase()} ${request.path}` };
    }
    return { allowed: true, role: certificate.role };
  }
  const match = BEARER.exec(request.authorization ?? '');
  if (!match) return { allowed: false, status: 401, message: 'authentication required: send "Authorization: Bearer <token>"' };
  const entry = registry.lookup(match[1]!);
  if (!entry) return { allowed: false, status: 401, message: 'invalid token' };
  if (!roleAllows(entry.role, request.method, request.path)) {
    return { allowed: false, status: 403, message: `forbidden: role ${entry.role} may not ${request.method.toUpperCase()} ${request.path}` };
  }
  return { allowed: true, role: entry.role };
};
