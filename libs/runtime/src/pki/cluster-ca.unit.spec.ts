import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, connect } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CA_KEY, initCa, issueClient, issueServer, loadCa } from './cluster-ca';

/** A real TLS handshake on loopback with Node's verifier: server and client each check the other's chain. */
const handshake = (dir: string, client: string): Promise<{ authorized: boolean; peerOu?: string | string[]; error?: string }> =>
  new Promise((resolve) => {
    const server = createServer(
      {
        cert: readFileSync(join(dir, 'server', 'server-cert.pem')),
        key: readFileSync(join(dir, 'server', 'server-key.pem')),
        ca: readFileSync(join(dir, 'ca', 'ca.pem')),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (socket) => {
        const peer = socket.getPeerCertificate();
        socket.end(JSON.stringify({ ou: peer.subject.OU }));
      },
    );
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      const socket = connect({
        host: '127.0.0.1',
        port,
        ca: readFileSync(join(dir, 'ca', 'ca.pem')),
        cert: readFileSync(join(client, 'cert.pem')),
        key: readFileSync(join(client, 'key.pem')),
      });
      let text = '';
      const done = (result: { authorized: boolean; peerOu?: string | string[]; error?: string }): void => {
        server.close();
        socket.destroy();
        resolve(result);
      };
      socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
      // TLS 1.3: a refused client learns it after its side of the handshake, as an error or a close with no reply.
      socket.on('end', () => done(text ? { authorized: socket.authorized, peerOu: (JSON.parse(text) as { ou?: string }).ou } : { authorized: false, error: 'closed without a reply' }));
      socket.on('error', (error) => done({ authorized: false, error: error.message }));
    });
  });

describe('shoal certs: the cluster CA', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shoal-certs-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes a CA whose key is 0600, and refuses to overwrite it', () => {
    const made = initCa({ out: join(dir, 'ca') });
    expect(made.certificate.ca).toBe(true);
    expect(made.certificate.subject).toContain('CN=Shoal cluster CA');
    expect(statSync(join(dir, 'ca', CA_KEY)).mode & 0o777).toBe(0o600);
    expect(() => initCa({ out: join(dir, 'ca') })).toThrow(/already exist/);
    expect(loadCa(join(dir, 'ca')).certificate.fingerprint256).toBe(made.certificate.fingerprint256);
  });

  it('issues a client certificate with the role in its OU, signed by the CA', () => {
    const ca = initCa({ out: join(dir, 'ca') });
    const issued = issueClient({ ca: join(dir, 'ca'), out: join(dir, 'alice'), role: 'auditor', commonName: 'alice', days: 30 });
    expect(issued.certificate.subject.split('\n')).toEqual(['O=shoal', 'OU=auditor', 'CN=alice']);
    expect(issued.certificate.checkIssued(ca.certificate)).toBe(true);
    expect(issued.certificate.verify(ca.certificate.publicKey)).toBe(true);
    expect(issued.certificate.ca).toBe(false);
    expect(issued.certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
    expect(statSync(issued.keyPath).mode & 0o777).toBe(0o600);
    expect(readFileSync(issued.caPath, 'utf8')).toBe(ca.certificate.toString());
    const days = (Date.parse(issued.certificate.validTo) - Date.parse(issued.certificate.validFrom)) / 86_400_000;
    expect(Math.round(days)).toBe(30);
  });

  it('issues a server certificate for the names and addresses given', () => {
    initCa({ out: join(dir, 'ca') });
    const issued = issueServer({ ca: join(dir, 'ca'), out: join(dir, 'server'), hosts: ['127.0.0.1', 'api.example.com', '::1'] });
    expect(issued.certificate.subjectAltName).toBe('IP Address:127.0.0.1, DNS:api.example.com, IP Address:0:0:0:0:0:0:0:1');
    expect(issued.certificate.checkHost('api.example.com')).toBe('api.example.com');
    expect(issued.certificate.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(issued.certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('says what to fix on bad input', () => {
    expect(() => issueClient({ ca: join(dir, 'nothing'), out: join(dir, 'x'), role: 'auditor', commonName: 'a' })).toThrow(/ca\.pem not found: --ca names a directory/);
    initCa({ out: join(dir, 'ca'), days: 10 });
    expect(() => issueClient({ ca: join(dir, 'ca'), out: join(dir, 'x'), role: 'root', commonName: 'a' })).toThrow(/--role must be one of operator, auditor/);
    expect(() => issueClient({ ca: join(dir, 'ca'), out: join(dir, 'x'), role: 'auditor', commonName: ' ' })).toThrow(/--cn/);
    expect(() => issueClient({ ca: join(dir, 'ca'), out: join(dir, 'x'), role: 'auditor', commonName: 'a', days: 30 })).toThrow(/outlive its CA/);
    expect(() => issueServer({ ca: join(dir, 'ca'), out: join(dir, 'x'), hosts: [] })).toThrow(/--host must name/);
  });

  it('completes a mutual TLS handshake with what it issued, and another CA\'s client is refused', async () => {
    initCa({ out: join(dir, 'ca') });
    issueServer({ ca: join(dir, 'ca'), out: join(dir, 'server'), hosts: ['127.0.0.1'] });
    issueClient({ ca: join(dir, 'ca'), out: join(dir, 'bob'), role: 'operator', commonName: 'bob' });
    await expect(handshake(dir, join(dir, 'bob'))).resolves.toEqual({ authorized: true, peerOu: 'operator' });
    initCa({ out: join(dir, 'other') });
    issueClient({ ca: join(dir, 'other'), out: join(dir, 'mallory'), role: 'operator', commonName: 'mallory' });
    const refused = await handshake(dir, join(dir, 'mallory'));
    expect(refused.authorized).toBe(false);
    expect(refused.error).toBeDefined();
  });

  it('parses back as a certificate Node accepts, with the validity asked for', () => {
    const notBefore = new Date(Date.UTC(2020, 0, 1));
    const notAfter = new Date(Date.UTC(2021, 0, 1));
    const made = initCa({ out: join(dir, 'ca'), notBefore, notAfter });
    const parsed = new X509Certificate(made.certificate.raw);
    expect(new Date(parsed.validFrom).toISOString()).toBe(notBefore.toISOString());
    expect(new Date(parsed.validTo).toISOString()).toBe(notAfter.toISOString());
  });
});
