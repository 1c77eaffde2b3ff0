/**
 * A request for an endpoint Shoal does not serve — `docker ps`, `docker images`,
 * `docker run`, `docker volume ls` reach for the engine's containers, images and volumes —
 * gets an answer that says why, not the router's bare "Cannot GET /v1.50/containers/json".
 */
const ROUTER_NOT_FOUND = /^Cannot ([A-Z]+) (\S+)$/;

/** The message for the router's "Cannot METHOD /path"; undefined for any other message. */
export const unknownRouteMessage = (message: string): string | undefined => {
  const match = ROUTER_NOT_FOUND.exec(message);
  if (!match) return undefined;
  const [, method, url] = match;
  const path = (url ?? '').split('?')[0] ?? '';
  return (
    `${method} ${path} is not served by Shoal: it is a swarm manager only (services, tasks, nodes, networks, swarm, events); ` +
    'containers, images and volumes belong to the nodes, so use `docker service …` instead'
  );
};
