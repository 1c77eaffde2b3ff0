import type { ServiceSpec } from '@shoal/contracts';
import { EventBuilder, serviceSpec } from '@shoal/testing';
import { evolve } from '../evolve';
import { emptyState } from '../state';
import type { ClusterState, Service } from '../state';
import { admitServiceSpec } from './service-admission';

const withConfig = (name: string, configId: string, configName: string): ServiceSpec => {
  const spec = serviceSpec(name);
  return { ...spec, task: { container: { ...spec.task.container, configs: [{ configId, configName, file: { name: '/app.conf', uid: '0', gid: '0', mode: 0o444 } }] } } };
};
const publishing = (name: string, port: number): ServiceSpec =>
  serviceSpec(name, { kind: 'replicated', replicas: 1 }, { endpoint: { mode: 'vip', ports: [{ protocol: 'tcp', targetPort: 80, publishedPort: port, publishMode: 'ingress' }] } });

describe('admitServiceSpec', () => {
  let state: ClusterState;
  let web: Service;
  beforeEach(() => {
    const b = new EventBuilder('c1');
    state = emptyState();
    for (const event of [
      b.event('ConfigCreated', { id: 'cfg1', spec: { name: 'app-conf', data: 'eA==' } }),
      b.event('ServiceCreated', { id: 's1', spec: publishing('web', 8080) }),
    ]) {
      expect(evolve(state, event).status).toBe('applied');
    }
    web = state.services.get('s1')!;
  });

  it('refuses a taken name at both stages, with the same code and reason', () => {
    const refusal = { code: 'name-conflict', reason: 'name conflicts with an existing object: service web is s1' };
    expect(admitServiceSpec(state, { id: 's2', spec: serviceSpec('web'), by: 'api' }, 'record')).toEqual(refusal);
    expect(admitServiceSpec(state, { id: 's2', spec: serviceSpec('web'), by: 'api' }, 'intent')).toEqual(refusal);
  });

  it("holds an intent's configs to their names, in swarmkit's words; a record only to their ids", () => {
    const misnamed = withConfig('app', 'cfg1', 'other-name');
    expect(admitServiceSpec(state, { id: 's2', spec: misnamed, by: 'api' }, 'intent')).toEqual({ code: 'invalid', reason: 'config not found: other-name' });
    expect(admitServiceSpec(state, { id: 's2', spec: misnamed, by: 'api' }, 'record')).toBeUndefined();
    const gone = withConfig('app', 'cfg9', 'gone');
    expect(admitServiceSpec(state, { id: 's2', spec: gone, by: 'api' }, 'record')).toEqual({ code: 'not-found', reason: 'config cfg9 not found' });
  });

  it("refuses an intent's ingress port another service publishes, but not its own", () => {
    expect(admitServiceSpec(state, { id: 's2', spec: publishing('api', 8080), by: 'api' }, 'intent')).toEqual({
      code: 'in-use',
      reason: "port '8080' is already in use by service 'web' (s1) as an ingress port",
    });
    expect(admitServiceSpec(state, { id: 's1', spec: publishing('web', 8080), current: web, by: 'api' }, 'intent')).toBeUndefined();
  });

  it('checks the expected version before the rules of the update, as evolve does', () => {
    const renamed = { id: 's1', spec: serviceSpec('api'), current: web, by: 'api' as const };
    expect(admitServiceSpec(state, { ...renamed, expect: { serviceVersions: { s1: 7 } } }, 'intent')).toEqual({
      code: 'stale-version',
      reason: 'update out of sequence: service s1 is at version 1, not 7',
    });
    expect(admitServiceSpec(state, renamed, 'intent')).toEqual({ code: 'invalid', reason: 'renaming services is not supported' });
  });

  it('refuses a rollback with nothing to go back to: in Docker words for an intent, in its own for a record', () => {
    const rollback = { id: 's1', spec: web.spec, current: web, rollback: true, by: 'api' as const };
    expect(admitServiceSpec(state, rollback, 'intent')).toEqual({ code: 'invalid', reason: 'service s1 does not have a previous spec' });
    expect(admitServiceSpec(state, rollback, 'record')).toEqual({ code: 'invalid', reason: 'service s1 has no previous spec to roll back to' });
  });
});
