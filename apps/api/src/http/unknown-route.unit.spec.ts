import { unknownRouteMessage } from './unknown-route';

describe('unknownRouteMessage', () => {
  it("says what Shoal serves instead of the router's bare message", () => {
    expect(unknownRouteMessage('Cannot GET /v1.50/containers/json?all=1')).toBe(
      'GET /v1.50/containers/json is not served by Shoal: it is a swarm manager only (services, tasks, nodes, networks, swarm, events); ' +
        'containers, images and volumes belong to the nodes, so use `docker service …` instead',
    );
  });

  it('leaves every other message as it is', () => {
    expect(unknownRouteMessage('service web not found')).toBeUndefined();
    expect(unknownRouteMessage('Cannot remove node n1')).toBeUndefined();
  });
});
