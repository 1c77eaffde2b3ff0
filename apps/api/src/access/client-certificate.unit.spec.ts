import { decideAccess } from './access-policy';
import { roleOfUnit } from './client-certificate';
import { TokenRegistry } from './tokens';

const registry = new TokenRegistry([{ token: 'o'.repeat(32), role: 'operator' }]);
const withCertificate = (unit: string | string[] | undefined, method: string, path: string) =>
  decideAccess(registry, { transport: 'tcp', certificate: roleOfUnit(unit), method, path });

describe('a verified client certificate\'s role', () => {
  it('grants operator (and manager) everything, as an operator token', () => {
    expect(withCertificate('operator', 'POST', '/services/create')).toEqual({ allowed: true, role: 'operator' });
    expect(withCertificate('manager', 'DELETE', '/nodes/n1')).toEqual({ allowed: true, role: 'operator' });
  });

  it('grants an auditor reads and the audit surface, and answers 403 to its writes', () => {
    expect(withCertificate('auditor', 'GET', '/services')).toEqual({ allowed: true, role: 'auditor' });
    expect(withCertificate('auditor', 'GET', '/shoal/v1/audit/verify')).toEqual({ allowed: true, role: 'auditor' });
    expect(withCertificate('auditor', 'POST', '/services/create')).toMatchObject({ allowed: false, status: 403, message: 'forbidden: role auditor may not POST /services/create' });
  });

  it('answers 403 to a worker, an unknown unit, none, or several', () => {
    expect(withCertificate('worker', 'GET', '/nodes')).toMatchObject({ allowed: false, status: 403, message: expect.stringMatching(/role "worker" may not use the API/) });
    expect(withCertificate('root', 'GET', '/nodes')).toMatchObject({ status: 403 });
    expect(withCertificate(undefined, 'GET', '/nodes')).toMatchObject({ status: 403, message: expect.stringMatching(/\(no OU\)/) });
    expect(withCertificate(['operator', 'auditor'], 'GET', '/nodes')).toMatchObject({ status: 403 });
  });

  it('decides before any token: a certificate that may not is not rescued by an operator token', () => {
    expect(decideAccess(registry, { transport: 'tcp', certificate: roleOfUnit('worker'), authorization: `Bearer ${'o'.repeat(32)}`, method: 'GET', path: '/nodes' })).toMatchObject({ status: 403 });
  });
});
