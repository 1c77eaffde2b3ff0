import { stripApiVersion } from './api-version';

describe("Docker's /v1.NN prefix", () => {
  it('is stripped, whatever the version', () => {
    expect(stripApiVersion('/v1.47/services?filters=%7B%7D')).toEqual({ ok: true, url: '/services?filters=%7B%7D', version: '1.47' });
    expect(stripApiVersion('/v1.50/_ping')).toEqual({ ok: true, url: '/_ping', version: '1.50' });
    expect(stripApiVersion('/v1.24')).toEqual({ ok: true, url: '/', version: '1.24' });
  });

  it('is optional', () => {
    expect(stripApiVersion('/services/web')).toEqual({ ok: true, url: '/services/web' });
    expect(stripApiVersion('/v1.x/services')).toEqual({ ok: true, url: '/v1.x/services' });
  });

  it('refuses versions this API does not speak, as Docker does', () => {
    expect(stripApiVersion('/v1.99/info')).toEqual({ ok: false, message: 'client version 1.99 is too new. Maximum supported API version is 1.50' });
    expect(stripApiVersion('/v1.12/info')).toMatchObject({ ok: false, message: expect.stringMatching(/too old/) });
  });
});
