import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureCa, nodeIdentity } from '@shoal/runtime';
import { ClusterTls } from './cluster-tls';

const DAY = 24 * 60 * 60 * 1000;

describe("the dispatcher's own certificate", () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-tls-unit-')));
  let clock = Date.now();
  const now = () => new Date(clock);

  beforeEach(() => jest.useFakeTimers({ now: clock }));
  afterEach(() => jest.useRealTimers());

  it("is a manager's of the cluster's CA, naming where it is dialled, and is renewed at half its life, long before it ends", () => {
    const tls = new ClusterTls(ca, { instance: 'dispatcher-1', hosts: ['shoal-dispatcher', '10.0.0.1'], now });
    const first = tls.certificate;
    expect(nodeIdentity(first, ca.certificate, now())).toMatchObject({ nodeId: 'dispatcher-1', role: 'manager' });
    expect(first.checkIP('10.0.0.1')).toBe('10.0.0.1');
    expect(first.checkHost('shoal-dispatcher')).toBe('shoal-dispatcher');

    // 44 days on (the timers wait in steps no longer than Node allows): still the first.
    clock += 44 * DAY;
    jest.advanceTimersByTime(44 * DAY);
    expect(tls.certificate).toBe(first);
    // Past half its life: a new one, for a new key, the same manager.
    clock += 2 * DAY;
    jest.advanceTimersByTime(2 * DAY);
    expect(tls.certificate.fingerprint256).not.toBe(first.fingerprint256);
    expect(tls.certificate.publicKey.export({ type: 'spki', format: 'pem' })).not.toBe(first.publicKey.export({ type: 'spki', format: 'pem' }));
    expect(nodeIdentity(tls.certificate, ca.certificate, now())).toMatchObject({ nodeId: 'dispatcher-1', role: 'manager' });
    tls.stop();
  });

  it('stops renewing once stopped', () => {
    const tls = new ClusterTls(ca, { instance: 'dispatcher-2', hosts: ['127.0.0.1'], now });
    const first = tls.certificate;
    tls.stop();
    clock += 60 * DAY;
    jest.advanceTimersByTime(60 * DAY);
    expect(tls.certificate).toBe(first);
  });
});
