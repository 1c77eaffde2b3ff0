import { apiListenSettings, describeListener, exposureWarning } from './api-listen-settings';

describe('the API listener settings', () => {
  it('binds 127.0.0.1 with plain HTTP unless told', () => {
    expect(apiListenSettings({}, [])).toEqual({ host: '127.0.0.1' });
    expect(exposureWarning({ host: '127.0.0.1' })).toBeUndefined();
  });

  it('takes the environment, and a flag over its variable', () => {
    const env = { SHOAL_API_HOST: '0.0.0.0', SHOAL_API_TLSVERIFY: '1', SHOAL_API_TLSCACERT: 'ca.pem', SHOAL_API_TLSCERT: 'server.pem', SHOAL_API_TLSKEY: 'server-key.pem' };
    expect(apiListenSettings(env)).toEqual({ host: '0.0.0.0', tls: { cert: 'server.pem', key: 'server-key.pem', ca: 'ca.pem', verify: true } });
    expect(apiListenSettings(env, ['run', 'api', '--host', '10.0.0.5', '--tlscert', 'other.pem'])).toMatchObject({ host: '10.0.0.5', tls: { cert: 'other.pem' } });
  });

  it('reads --tls as TLS without client verification, and --tlsverify as both', () => {
    expect(apiListenSettings({}, ['--tls', '--tlscert', 'c', '--tlskey', 'k'])).toEqual({ host: '127.0.0.1', tls: { cert: 'c', key: 'k', verify: false } });
    expect(apiListenSettings({}, ['--tlsverify', '--tlscacert', 'a', '--tlscert', 'c', '--tlskey', 'k']).tls?.verify).toBe(true);
  });

  it('says what to fix', () => {
    expect(() => apiListenSettings({}, ['--tls'])).toThrow(/--tls needs the server's certificate and key: --tlscert FILE --tlskey FILE/);
    expect(() => apiListenSettings({}, ['--tlsverify', '--tlscert', 'c', '--tlskey', 'k'])).toThrow(/--tlsverify needs .* --tlscacert FILE/);
    expect(() => apiListenSettings({}, ['--tlscert', 'c'])).toThrow(/take effect with --tls or --tlsverify/);
    expect(() => apiListenSettings({ SHOAL_API_TLSVERIFY: 'maybe' })).toThrow(/SHOAL_API_TLSVERIFY must be 1 or 0/);
    expect(() => apiListenSettings({}, ['--host', 'not a host'])).toThrow(/--host \(SHOAL_API_HOST\) must be an IP address or a host name/);
    expect(() => apiListenSettings({}, ['--bind', 'x'])).toThrow(/Unknown option '--bind'.*the API takes --host/);
  });

  it('warns, as dockerd does, of a listener off loopback without client verification', () => {
    expect(exposureWarning({ host: '0.0.0.0' })).toMatch(/without TLS/);
    expect(exposureWarning({ host: '0.0.0.0', tls: { cert: 'c', key: 'k', verify: false } })).toMatch(/without --tlsverify/);
    expect(exposureWarning({ host: '0.0.0.0', tls: { cert: 'c', key: 'k', ca: 'a', verify: true } })).toBeUndefined();
    expect(describeListener({ host: '::', tls: { cert: 'c', key: 'k', ca: 'a', verify: true } }, 2376)).toBe('https://[::]:2376 (client certificates verified)');
  });
});
