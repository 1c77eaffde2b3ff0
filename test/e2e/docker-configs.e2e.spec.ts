/**
 * The real docker CLI (v28, unmodified) against the API: `docker config create`, `ls`,
 * `inspect`, `rm`, a service that uses a config, and a stack that brings its own. The API
 * runs in this process on an embedded log; the docker binary is a separate process
 * talking to its unix socket. `--detach`: convergence needs the other components. The
 * scenarios (scenarios/docker-configs.scenarios.ts) run on the real components too
 * (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerConfigScenarios } from './scenarios/docker-configs.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker config, against Shoal', () => {
  dockerConfigScenarios(useSystem('in-process'));
});
