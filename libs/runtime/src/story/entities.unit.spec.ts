import { EventBuilder } from '@shoal/testing';
import { entitiesOf, entityIdsOf, taskItemOf } from './entities';

describe('the entities a config record touches', () => {
  const b = new EventBuilder('c1');
  const spec = { name: 'app-conf', data: 'QQ==' };

  it.each([
    ['ConfigCreated', b.event('ConfigCreated', { id: 'cfg1', spec })],
    ['ConfigUpdated', b.event('ConfigUpdated', { id: 'cfg1', spec: { ...spec, labels: { a: 'b' } } })],
    ['ConfigRemoved', b.event('ConfigRemoved', { id: 'cfg1' })],
  ])('%s names the config, and only it', (_type, event) => {
    expect(entitiesOf(event)).toEqual([{ kind: 'config', id: 'cfg1' }]);
    expect(entityIdsOf(event)).toEqual(['cfg1']);
    expect(taskItemOf(event, 't1')).toBe(event.data);
  });

  it('a service using a config names the service, not the config', () => {
    const ref = { configId: 'cfg1', configName: 'app-conf', file: { name: '/a', uid: '0', gid: '0', mode: 0o444 } };
    const event = b.event('ServiceCreated', { id: 's1', spec: { name: 'web', task: { container: { image: 'x', configs: [ref] } }, mode: { kind: 'replicated', replicas: 1 } } });
    expect(entitiesOf(event)).toEqual([{ kind: 'service', id: 's1' }]);
  });
});
