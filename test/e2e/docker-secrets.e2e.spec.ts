/**
 * The real docker CLI against the API: `docker secret create`, `ls`, `inspect`, `rm`, a
 * service that uses a secret, and a stack that brings its own. The API runs in this process
 * on an embedded log (its data keys as files); the scenarios
 * (scenarios/docker-secrets.scenarios.ts) run on the real components too, the data keys on
 * Kafka (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerSecretScenarios } from './scenarios/docker-secrets.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker secret, against Shoal', () => {
  dockerSecretScenarios(useSystem('in-process'));
});
