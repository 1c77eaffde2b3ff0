/**
 * Bearer tokens for the API's TCP listener (the unix socket needs none: its 0600 mode is
 * the access control, as with Docker's own socket).
 *
 * - `$SHOAL_DATA_DIR/admin.token` (0600): an operator token, made on first start.
 * - `$SHOAL_DATA_DIR/tokens.json` (optional, read at start): more tokens, each with a role:
 *
 *       [{ "token": "a-long-random-secret", "role": "auditor", "name": "audit-team" }]
 *
 *   An auditor token is made by adding such an entry (any string of 16+ characters as the
 *   token, e.g. `openssl rand -hex 32`) and restarting the API.
 *
 * Roles: `operator` may do everything; `auditor` may read (GET, HEAD) and use the audit
 * surface under /shoal/v1/audit, and nothing else.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, mkdirSync, chmodSync } from 'node:fs';
import { join } from 'node:path';

export type Role = 'operator' | 'auditor';
export const ROLES: readonly Role[] = ['operator', 'auditor'];

export interface TokenEntry {
  readonly token: string;
  readonly role: Role;
  readonly name?: string;
}

export const ADMIN_TOKEN_FILE = 'admin.token';
export const TOKENS_FILE = 'tokens.json';
const MIN_TOKEN_LENGTH = 16;

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/** Who a bearer token belongs to; compares digests in constant time. */
export class TokenRegistry {
  private readonly entries: readonly { readonly digest: Buffer; readonly entry: TokenEntry }[];

  constructor(entries: readonly TokenEntry[]) {
    this.entries = entries.map((entry) => ({ digest: digest(entry.token), entry }));
  }

  lookup(token: string): TokenEntry | undefined {
    const wanted = digest(token);
    let found: TokenEntry | undefined;
    for (const { digest: known, entry } of this.entries) if (timingSafeEqual(known, wanted)) found ??= entry;
    return found;
  }
}

/** Parses tokens.json; a clear error names the entry that is wrong. */
export const parseTokenFile = (text: string, source = TOKENS_FILE): TokenEntry[] => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`${source}: not JSON (${(error as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${source}: expected an array of { "token", "role" } entries`);
  return parsed.map((item: unknown, index) => {
    const where = `${source}[${index}]`;
    if (typeof item !== 'object' || item === null) throw new Error(`${where}: expected an object`);
    const { token, role, name } = item as Record<string, unknown>;
    if (typeof token !== 'string' || token.length < MIN_TOKEN_LENGTH) {
      throw new Error(`${where}.token: expected a string of at least ${MIN_TOKEN_LENGTH} characters`);
    }
    if (!ROLES.includes(role as Role)) throw new Error(`${where}.role: expected one of ${ROLES.join(', ')}`);
    if (name !== undefined && typeof name !== 'string') throw new Error(`${where}.name: expected a string`);
    return { token, role: role as Role, ...(name ? { name } : {}) };
  });
};

/** Reads admin.token (writing a new one, 0600, when there is none) and tokens.json. */
export const loadTokens = (dataDir: string): { readonly registry: TokenRegistry; readonly adminToken: string } => {
  mkdirSync(dataDir, { recursive: true });
  const adminFile = join(dataDir, ADMIN_TOKEN_FILE);
  if (!existsSync(adminFile)) {
    writeFileSync(adminFile, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(adminFile, 0o600);
  }
  const adminToken = readFileSync(adminFile, 'utf8').trim();
  if (adminToken.length < MIN_TOKEN_LENGTH) throw new Error(`${adminFile}: the admin token is shorter than ${MIN_TOKEN_LENGTH} characters`);
  const tokensFile = join(dataDir, TOKENS_FILE);
  const extra = existsSync(tokensFile) ? parseTokenFile(readFileSync(tokensFile, 'utf8'), tokensFile) : [];
  return { registry: new TokenRegistry([{ token: adminToken, role: 'operator', name: 'admin' }, ...extra]), adminToken };
};
