/**
 * The docker CLI scenarios of docker-services, docker-networks, docker-configs,
 * docker-events and docker-swarm-nodes (scenarios/*.scenarios.ts), the same steps and assertions, through
 * the whole system: the API, allocator, orchestrator, scheduler, reaper and dispatcher each
 * `shoal run <component>` on the test broker, and two agents of one simulated node each.
 * Where the in-process specs write what a component would, the step here waits until the
 * real component has done it. One system for every scenario, in this order: each leaves
 * no service behind, and the swarm and node stories, which drain and remove nodes, go last.
 */
import { dockerConfigScenarios } from './scenarios/docker-configs.scenarios';
import { dockerSecretScenarios } from './scenarios/docker-secrets.scenarios';
import { dockerEventScenarios } from './scenarios/docker-events.scenarios';
import { dockerNetworkScenarios } from './scenarios/docker-networks.scenarios';
import { dockerServiceScenarios } from './scenarios/docker-services.scenarios';
import { dockerSwarmNodeScenarios } from './scenarios/docker-swarm-nodes.scenarios';
import { useSystem } from './scenarios/use-system';

describe('the docker CLI scenarios against Shoal as separate processes on Kafka', () => {
  const system = useSystem('processes');
  describe('docker service', () => dockerServiceScenarios(system));
  describe('docker network', () => dockerNetworkScenarios(system));
  describe('docker config', () => dockerConfigScenarios(system));
  describe('docker secret', () => dockerSecretScenarios(system));
  describe('docker events', () => dockerEventScenarios(system));
  describe('docker swarm and docker node', () => dockerSwarmNodeScenarios(system));
});
