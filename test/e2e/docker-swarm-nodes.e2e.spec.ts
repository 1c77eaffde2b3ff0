/**
 * The real docker CLI (v28, unmodified) against the API: the swarm and its nodes. The API
 * runs in this process on an embedded log; the docker binary is a separate process,
 * talking to the unix socket (and over TCP with a bearer token from its config's
 * HttpHeaders). Nodes are registered, and go down, by appending what the dispatcher
 * appends. The scenarios (scenarios/docker-swarm-nodes.scenarios.ts) run on the real
 * components too (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerSwarmNodeScenarios } from './scenarios/docker-swarm-nodes.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker swarm and docker node, against Shoal', () => {
  dockerSwarmNodeScenarios(useSystem('in-process'));
});
