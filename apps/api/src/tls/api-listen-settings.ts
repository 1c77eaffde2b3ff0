/**
 * Where the API's TCP listener binds and how it speaks TLS, as Docker's daemon offers it:
 *
 *   flag                 environment              meaning
 *   --host ADDR          SHOAL_API_HOST           bind address (default 127.0.0.1; 0.0.0.0 only when asked)
 *   --tls                SHOAL_API_TLS            serve TLS with --tlscert/--tlskey; clients need a bearer token
 *   --tlsverify          SHOAL_API_TLSVERIFY      TLS, and a client certificate signed by --tlscacert is required
 *   --tlscacert FILE     SHOAL_API_TLSCACERT      CA that client certificates must chain to
 *   --tlscert FILE       SHOAL_API_TLSCERT        the server's certificate (PEM)
 *   --tlskey FILE        SHOAL_API_TLSKEY         the server's private key (PEM)
 *
 * A flag wins over its variable. `--tlsverify` implies `--tls`, as with dockerd.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { parseArgs } from 'node:util';
import { defaultSettings, isBindAddress, shoalSettings } from '@shoal/config';

export interface ApiTlsSettings {
  readonly cert: string;
  readonly key: string;
  /** Required with `verify`. */
  readonly ca?: string;
  /** Require and verify a client certificate (`--tlsverify`). */
  readonly verify: boolean;
}

export interface ApiListenSettings {
  readonly host: string;
  readonly tls?: ApiTlsSettings;
}

export const DEFAULT_API_HOST = defaultSettings().SHOAL_API_HOST;

/** The flags this reads; anything else on the command line is refused (`shoal run api` and its component name are positionals). */
const OPTIONS = {
  host: { type: 'string' },
  tls: { type: 'boolean' },
  tlsverify: { type: 'boolean' },
  tlscacert: { type: 'string' },
  tlscert: { type: 'string' },
  tlskey: { type: 'string' },
} as const;

/** The settings from the environment and the command line (flags win); a clear error names what to fix. */
export const apiListenSettings = (env: NodeJS.ProcessEnv, argv: readonly string[] = []): ApiListenSettings => {
  let flags: { host?: string; tls?: boolean; tlsverify?: boolean; tlscacert?: string; tlscert?: string; tlskey?: string };
  try {
    flags = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true }).values;
  } catch (error) {
    throw new Error(`${(error as Error).message} (the API takes --host, --tls, --tlsverify, --tlscacert, --tlscert, --tlskey)`);
  }
  const settings = shoalSettings(env);
  const host = (flags.host ?? settings.SHOAL_API_HOST).trim() || DEFAULT_API_HOST;
  if (!isBindAddress(host)) throw new Error(`--host (SHOAL_API_HOST) must be an IP address or a host name to bind, not "${host}"`);
  const verify = flags.tlsverify ?? settings.SHOAL_API_TLSVERIFY;
  const tls = verify || (flags.tls ?? settings.SHOAL_API_TLS);
  const cert = (flags.tlscert ?? settings.SHOAL_API_TLSCERT ?? '').trim();
  const key = (flags.tlskey ?? settings.SHOAL_API_TLSKEY ?? '').trim();
  const ca = (flags.tlscacert ?? settings.SHOAL_API_TLSCACERT ?? '').trim();
  if (!tls) {
    if (cert || key || ca) throw new Error('--tlscert, --tlskey and --tlscacert take effect with --tls or --tlsverify (SHOAL_API_TLS=1, SHOAL_API_TLSVERIFY=1): add one');
    return { host };
  }
  if (!cert || !key) throw new Error(`${verify ? '--tlsverify' : '--tls'} needs the server's certificate and key: --tlscert FILE --tlskey FILE (SHOAL_API_TLSCERT, SHOAL_API_TLSKEY)`);
  if (verify && !ca) throw new Error('--tlsverify needs the CA that client certificates chain to: --tlscacert FILE (SHOAL_API_TLSCACERT)');
  return { host, tls: { cert, key, verify, ...(ca ? { ca } : {}) } };
};

const readPem = (what: string, path: string): Buffer => {
  if (!existsSync(path)) throw new Error(`${what} ${path} not found`);
  return readFileSync(path);
};

export interface ApiHttpsOptions {
  readonly cert: Buffer;
  readonly key: Buffer;
  readonly ca?: Buffer;
  readonly requestCert: boolean;
  readonly rejectUnauthorized: boolean;
}

/** The options of Node's https server for these settings (TLS 1.2 or later, Node's floor): with --tlsverify, a handshake without a certificate the CA signed (or one expired) is refused. */
export const httpsOptions = (tls: ApiTlsSettings): ApiHttpsOptions => ({
  cert: readPem('--tlscert', tls.cert),
  key: readPem('--tlskey', tls.key),
  ...(tls.ca ? { ca: readPem('--tlscacert', tls.ca) } : {}),
  requestCert: tls.verify,
  rejectUnauthorized: tls.verify,
});

/** The listener as a URL for humans: `https://0.0.0.0:2376 (client certificates verified)`. */
export const describeListener = (settings: ApiListenSettings, port: number): string => {
  const host = isIP(settings.host) === 6 ? `[${settings.host}]` : settings.host;
  if (!settings.tls) return `http://${host}:${port}`;
  return `https://${host}:${port}${settings.tls.verify ? ' (client certificates verified)' : ''}`;
};

/** dockerd's warning, for a listener reachable from other hosts with no client verification. */
export const exposureWarning = (settings: ApiListenSettings): string | undefined => {
  const loopback = settings.host === '127.0.0.1' || settings.host === '::1' || settings.host === 'localhost';
  if (loopback || settings.tls?.verify) return undefined;
  return settings.tls
    ? `api: listening on ${settings.host} with TLS but without --tlsverify: any client that holds a bearer token may connect`
    : `api: listening on ${settings.host} without TLS: bearer tokens cross the network in the clear; use --tlsverify`;
};
