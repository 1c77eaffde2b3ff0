/**
 * The cluster CA on disk, and the certificates it issues, in the file names Docker uses so
 * that a directory is a DOCKER_CERT_PATH as it stands:
 *   CA dir:      ca.pem, ca-key.pem (0600)
 *   client dir:  ca.pem, cert.pem, key.pem (0600)     — `docker --tlsverify`, role in the OU
 *   server dir:  ca.pem, server-cert.pem, server-key.pem (0600) — `shoal run api --tlsverify`
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildCertificate, newKeyPair, privateKeyPem } from './x509-builder';

export const CA_CERT = 'ca.pem';
export const CA_KEY = 'ca-key.pem';
export const CLIENT_CERT = 'cert.pem';
export const CLIENT_KEY = 'key.pem';
export const SERVER_CERT = 'server-cert.pem';
export const SERVER_KEY = 'server-key.pem';

/** The roles a client certificate may carry in its OU; the API grants them as it grants bearer tokens' roles. */
export const CLIENT_ROLES = ['operator', 'auditor'] as const;
export type ClientRole = (typeof CLIENT_ROLES)[number];

const DAY_MS = 24 * 60 * 60 * 1000;
/** A minute's grace for clocks a little behind this one. */
const BACKDATE_MS = 60 * 1000;

export interface Validity {
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Used when notAfter is not given. */
  readonly days?: number;
}

const window = (validity: Validity, defaultDays: number, now = Date.now()): { notBefore: Date; notAfter: Date } => {
  const days = validity.days ?? defaultDays;
  if (!Number.isInteger(days) || days < 1) throw new Error(`--days must be a whole number of at least 1, not ${days}`);
  return {
    notBefore: validity.notBefore ?? new Date(now - BACKDATE_MS),
    notAfter: validity.notAfter ?? new Date(now + days * DAY_MS),
  };
};

const writeSecret = (path: string, text: string): void => {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
};

const refuseOverwrite = (paths: readonly string[]): void => {
  const present = paths.filter((path) => existsSync(path));
  if (present.length > 0) throw new Error(`${present.join(', ')} already exist${present.length === 1 ? 's' : ''}: choose another --out, or remove ${present.length === 1 ? 'it' : 'them'} first`);
};

export interface CaInitOptions extends Validity {
  readonly out: string;
  /** Default `Shoal cluster CA`. */
  readonly commonName?: string;
}

/** Makes a self-signed CA (ten years by default) in `out`. */
export const initCa = (options: CaInitOptions): { readonly certPath: string; readonly keyPath: string; readonly certificate: X509Certificate } => {
  const certPath = join(options.out, CA_CERT);
  const keyPath = join(options.out, CA_KEY);
  refuseOverwrite([certPath, keyPath]);
  mkdirSync(options.out, { recursive: true, mode: 0o700 });
  const { publicKey, privateKey } = newKeyPair();
  const certificate = buildCertificate({
    kind: 'ca',
    subject: { commonName: options.commonName ?? 'Shoal cluster CA', organization: 'shoal' },
    publicKey,
    signingKey: privateKey,
    ...window(options, 3650),
  });
  writeSecret(keyPath, privateKeyPem(privateKey));
  writeFileSync(certPath, certificate.toString());
  return { certPath, keyPath, certificate };
};

/** The CA in `dir`: its certificate and key, checked to belong together. */
export const loadCa = (dir: string): { readonly certificate: X509Certificate; readonly key: ReturnType<typeof createPrivateKey>; readonly pem: string } => {
  const certPath = join(dir, CA_CERT);
  const keyPath = join(dir, CA_KEY);
  for (const path of [certPath, keyPath]) {
    if (!existsSync(path)) throw new Error(`${path} not found: --ca names a directory made by \`shoal certs ca init --out DIR\``);
  }
  const pem = readFileSync(certPath, 'utf8');
  const certificate = new X509Certificate(pem);
  const key = createPrivateKey(readFileSync(keyPath));
  if (!certificate.ca) throw new Error(`${certPath} is not a CA certificate`);
  if (!certificate.checkPrivateKey(key)) throw new Error(`${keyPath} is not the key of ${certPath}`);
  return { certificate, key, pem };
};

export interface IssueClientOptions extends Validity {
  readonly ca: string;
  readonly out: string;
  readonly role: string;
  readonly commonName: string;
}

export interface IssueServerOptions extends Validity {
  readonly ca: string;
  readonly out: string;
  /** Names and addresses clients dial, e.g. 127.0.0.1, api.example.com. */
  readonly hosts: readonly string[];
  /** Default: the first host. */
  readonly commonName?: string;
}

export interface Issued {
  readonly certPath: string;
  readonly keyPath: string;
  readonly caPath: string;
  readonly certificate: X509Certificate;
}

const issue = (
  options: Validity & { readonly ca: string; readonly out: string },
  files: { readonly cert: string; readonly key: string },
  make: (ca: ReturnType<typeof loadCa>, keys: ReturnType<typeof newKeyPair>, validity: { notBefore: Date; notAfter: Date }) => X509Certificate,
): Issued => {
  const ca = loadCa(options.ca);
  const certPath = join(options.out, files.cert);
  const keyPath = join(options.out, files.key);
  const caPath = join(options.out, CA_CERT);
  refuseOverwrite([certPath, keyPath]);
  const validity = window(options, 365);
  if (validity.notAfter > new Date(ca.certificate.validTo)) throw new Error(`the certificate would outlive its CA (valid to ${ca.certificate.validTo}): ask for fewer --days`);
  mkdirSync(options.out, { recursive: true, mode: 0o700 });
  const keys = newKeyPair();
  const certificate = make(ca, keys, validity);
  writeSecret(keyPath, privateKeyPem(keys.privateKey));
  writeFileSync(certPath, certificate.toString());
  if (!existsSync(caPath) || readFileSync(caPath, 'utf8') !== ca.pem) writeFileSync(caPath, ca.pem);
  return { certPath, keyPath, caPath, certificate };
};

/** A client certificate for an operator or an auditor: the role in the OU, the person in the CN. */
export const issueClient = (options: IssueClientOptions): Issued => {
  if (!(CLIENT_ROLES as readonly string[]).includes(options.role)) throw new Error(`--role must be one of ${CLIENT_ROLES.join(', ')}, not "${options.role}"`);
  if (!options.commonName.trim()) throw new Error('--cn must name who the certificate is for, e.g. --cn alice');
  return issue(options, { cert: CLIENT_CERT, key: CLIENT_KEY }, (ca, keys, validity) =>
    buildCertificate({
      kind: 'client',
      subject: { commonName: options.commonName.trim(), organization: 'shoal', organizationalUnit: options.role },
      publicKey: keys.publicKey,
      issuer: ca.certificate,
      signingKey: ca.key,
      ...validity,
    }),
  );
};

/** A server certificate for the API, valid for the names and addresses given. */
export const issueServer = (options: IssueServerOptions): Issued => {
  const hosts = options.hosts.map((host) => host.trim()).filter(Boolean);
  if (hosts.length === 0) throw new Error('--host must name at least one DNS name or IP address clients dial, e.g. --host 127.0.0.1');
  return issue(options, { cert: SERVER_CERT, key: SERVER_KEY }, (ca, keys, validity) =>
    buildCertificate({
      kind: 'server',
      subject: { commonName: options.commonName ?? hosts[0]!, organization: 'shoal' },
      publicKey: keys.publicKey,
      issuer: ca.certificate,
      signingKey: ca.key,
      hosts,
      ...validity,
    }),
  );
};

/**
 * The cluster's root CA in `dir`, made there if it has none: the first process to start with
 * the directory makes it, and any other, racing, takes the one that won. The certificate is
 * linked into place after its key, each from a file of its own, so that a reader finds both
 * or waits for the certificate.
 */
export const ensureCa = (dir: string, commonName = 'Shoal cluster root CA'): ReturnType<typeof loadCa> => {
  const certPath = join(dir, CA_CERT);
  const keyPath = join(dir, CA_KEY);
  if (!existsSync(certPath)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const suffix = `.${process.pid}.${Date.now()}`;
    const made = initCa({ out: join(dir, `.new${suffix}`), commonName });
    try {
      linkSync(made.keyPath, keyPath);
      linkSync(made.certPath, certPath);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(join(dir, `.new${suffix}`), { recursive: true, force: true });
    }
  }
  const until = Date.now() + 5_000;
  for (;;) {
    try {
      return loadCa(dir);
    } catch (error) {
      if (Date.now() > until) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }
};
