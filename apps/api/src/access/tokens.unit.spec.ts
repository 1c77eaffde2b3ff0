import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_TOKEN_FILE, TOKENS_FILE, loadTokens } from './tokens';

describe('loading tokens from the data dir', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'shoal-tokens-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('makes an operator token on first start, 0600, and keeps it on the next', () => {
    const first = loadTokens(dir);
    expect(first.adminToken).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, ADMIN_TOKEN_FILE)).mode & 0o777).toBe(0o600);
    expect(first.registry.lookup(first.adminToken)).toMatchObject({ role: 'operator' });
    const second = loadTokens(dir);
    expect(second.adminToken).toBe(first.adminToken);
    expect(readFileSync(join(dir, ADMIN_TOKEN_FILE), 'utf8').trim()).toBe(first.adminToken);
  });

  it('adds the tokens of tokens.json with their roles', () => {
    writeFileSync(join(dir, TOKENS_FILE), JSON.stringify([{ token: 'an-auditor-token-of-some-length', role: 'auditor' }]));
    const { registry } = loadTokens(dir);
    expect(registry.lookup('an-auditor-token-of-some-length')).toMatchObject({ role: 'auditor' });
    expect(registry.lookup('an-auditor-token-of-some-lengthX')).toBeUndefined();
  });

  it('refuses to start on a broken tokens.json, naming the file', () => {
    writeFileSync(join(dir, TOKENS_FILE), '[{"token": "x", "role": "auditor"}]');
    expect(() => loadTokens(dir)).toThrow(/tokens\.json\[0\]\.token/);
  });
});
