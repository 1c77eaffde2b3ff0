import { configFromEnv } from './shoal.config';

describe('the all-in-one settings', () => {
  it('binds the API to 127.0.0.1 over plain HTTP unless told', () => {
    expect(configFromEnv({}).apiListen).toEqual({ host: '127.0.0.1' });
  });

  it('takes the API host and TLS from the same variables as `shoal run api`', () => {
    const config = configFromEnv({ SHOAL_API_HOST: '0.0.0.0', SHOAL_API_TLSVERIFY: '1', SHOAL_API_TLSCACERT: '/c/ca.pem', SHOAL_API_TLSCERT: '/c/server-cert.pem', SHOAL_API_TLSKEY: '/c/server-key.pem' });
    expect(config.apiListen).toEqual({ host: '0.0.0.0', tls: { ca: '/c/ca.pem', cert: '/c/server-cert.pem', key: '/c/server-key.pem', verify: true } });
    expect(() => configFromEnv({ SHOAL_API_TLS: '1' })).toThrow(/--tls needs the server's certificate and key/);
  });
});
