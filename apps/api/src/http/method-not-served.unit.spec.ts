import { methodNotServed } from './method-not-served';

describe('methodNotServed', () => {
  it("answers 404 on Docker's routes, as Docker's engine does, naming the methods served", () => {
    expect(methodNotServed('TRACE', '/v1.47/services?x=1', '/services', ['GET', 'HEAD'])).toEqual({
      status: 404,
      message: 'TRACE /v1.47/services: /services answers GET, HEAD',
      allow: 'GET, HEAD',
    });
  });

  it("answers 405 on Shoal's own surface", () => {
    expect(methodNotServed('DELETE', '/shoal/v1/log-level', '/shoal/v1/log-level', ['GET', 'HEAD', 'POST'])).toMatchObject({ status: 405, allow: 'GET, HEAD, POST' });
    expect(methodNotServed('POST', '/metrics', '/metrics', ['GET', 'HEAD'])).toMatchObject({ status: 405 });
  });

  it('leaves a path no route serves to the 404 for unknown paths', () => {
    expect(methodNotServed('TRACE', '/nope', '/nope', [])).toBeUndefined();
  });
});
