/**
 * The real docker CLI (v28, unmodified) against the API: services and tasks. The API runs
 * in this process on an embedded log; `--detach` where convergence needs the orchestrator,
 * allocator and scheduler, not the API, and tasks are made to exist by appending what those
 * components append. The scenarios (scenarios/docker-services.scenarios.ts) run on the
 * real components too (docker-scenarios-on-processes.e2e.spec.ts).
 */
import { dockerOutput } from '@shoal/testing';
import { dockerServiceScenarios } from './scenarios/docker-services.scenarios';
import { useSystem } from './scenarios/use-system';

describe('docker service, against Shoal', () => {
  const system = useSystem('in-process');
  dockerServiceScenarios(system);

  it('docker service logs, with no dispatcher to ask (the API alone), says where the API looked and what to check', async () => {
    const create = ['service', 'create', '--detach', '--name', 'logged', 'nginx:1.27'];
    dockerOutput(create, await system.current.docker(create));
    const logs = await system.current.docker(['service', 'logs', 'logged']);
    expect(logs.code).not.toBe(0);
    // No dispatcher has taken over on this log: the API asks at its join address, where nothing answers.
    expect(logs.stderr).toMatch(/^Error response from daemon: cannot get task logs: no active dispatcher answers at 127\.0\.0\.1:2377 .*check that one runs/);
    expect(logs.stdout).toBe('');
  });
});
