/**
 * The real docker CLI (v28, unmodified) against the API: `docker network create -d overlay`,
 * `ls`, `inspect`, `rm`, `prune`. The API runs in this process on an embedded log; the docker
 * binary is a separate process talking to its unix socket (and over TCP). The scenarios
 * (scenarios/docker-networks.scenarios.ts) run on the real components too
 * (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerNetworkScenarios } from './scenarios/docker-networks.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker network, against Shoal', () => {
  dockerNetworkScenarios(useSystem('in-process'));
});
