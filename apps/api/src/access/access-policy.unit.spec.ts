import { decideAccess, roleAllows } from './access-policy';
import { TokenRegistry, parseTokenFile } from './tokens';

const operator = 'o'.repeat(32);
const auditor = 'a'.repeat(32);
const registry = new TokenRegistry([
  { token: operator, role: 'operator' },
  { token: auditor, role: 'auditor' },
]);

describe('access policy', () => {
  it('lets anything through the unix socket without a token', () => {
    expect(decideAccess(registry, { transport: 'socket', method: 'POST', path: '/services/create' })).toEqual({ allowed: true, role: 'operator' });
  });

  it('answers 401 over TCP without a token, or with one it does not know', () => {
    expect(decideAccess(registry, { transport: 'tcp', method: 'GET', path: '/info' })).toMatchObject({ allowed: false, status: 401 });
    expect(decideAccess(registry, { transport: 'tcp', method: 'GET', path: '/info', authorization: `Bearer ${'x'.repeat(32)}` })).toMatchObject({
      allowed: false,
      status: 401,
      message: 'invalid token',
    });
    expect(decideAccess(registry, { transport: 'tcp', method: 'GET', path: '/info', authorization: `Basic ${operator}` })).toMatchObject({ status: 401 });
  });

  it('lets an operator do everything', () => {
    expect(decideAccess(registry, { transport: 'tcp', method: 'DELETE', path: '/services/web', authorization: `Bearer ${operator}` })).toEqual({
      allowed: true,
      role: 'operator',
    });
  });

  it('lets an auditor read and use the audit surface, and answers 403 to its writes', () => {
    const as = (method: string, path: string) => decideAccess(registry, { transport: 'tcp', method, path, authorization: `Bearer ${auditor}` });
    expect(as('GET', '/services')).toEqual({ allowed: true, role: 'auditor' });
    expect(as('HEAD', '/_ping')).toEqual({ allowed: true, role: 'auditor' });
    expect(as('POST', '/shoal/v1/audit/verify')).toEqual({ allowed: true, role: 'auditor' });
    expect(as('POST', '/services/create')).toMatchObject({ allowed: false, status: 403 });
    expect(as('DELETE', '/nodes/n1')).toMatchObject({ allowed: false, status: 403 });
    expect(roleAllows('auditor', 'POST', '/shoal/v1/auditor')).toBe(false);
  });
});

describe('tokens.json', () => {
  it('reads entries with their roles', () => {
    expect(parseTokenFile(JSON.stringify([{ token: auditor, role: 'auditor', name: 'audit' }]))).toEqual([{ token: auditor, role: 'auditor', name: 'audit' }]);
  });

  it('names the entry that is wrong', () => {
    expect(() => parseTokenFile('{')).toThrow(/not JSON/);
    expect(() => parseTokenFile('{}')).toThrow(/expected an array/);
    expect(() => parseTokenFile(JSON.stringify([{ token: 'short', role: 'auditor' }]))).toThrow(/\[0\]\.token/);
    expect(() => parseTokenFile(JSON.stringify([{ token: auditor, role: 'root' }]))).toThrow(/\[0\]\.role: expected one of operator, auditor/);
  });
});
