/**
 * The real docker CLI (v28, unmodified) against the API: `docker events --since … --until …`
 * shows Shoal's history, read from the log. The API runs in this process on an embedded
 * log; the docker binary is a separate process talking to its unix socket; the test
 * appends what the other components would. The scenarios (scenarios/docker-events.scenarios.ts)
 * run on the real components too (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerEventScenarios } from './scenarios/docker-events.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker events, against Shoal', () => {
  dockerEventScenarios(useSystem('in-process'));
});
