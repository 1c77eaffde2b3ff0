import { emptyState, evolve } from '@shoal/domain';
import { EventBuilder, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { entityIdOf } from './entity-ref';

describe('entityIdOf', () => {
  const b = new EventBuilder('c1');
  const web = serviceSpec('web');
  const state = emptyState();
  for (const event of [
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
    b.event('ServiceCreated', { id: 's1', spec: web }),
    b.event('TasksCreated', { tasks: [newTask('t1abcdef', 's1', web)] }),
    b.event('ConfigCreated', { id: 'cfg1', spec: { name: 'app-conf', data: 'QQ==' } }),
  ])
    evolve(state, event);

  it('reads a service name, a node hostname and a task id prefix as their ids', () => {
    expect(entityIdOf(state, 'web')).toBe('s1');
    expect(entityIdOf(state, 'node-1')).toBe('n1');
    expect(entityIdOf(state, 't1abc')).toBe('t1abcdef');
  });

  it("reads a config's name as its id", () => {
    expect(entityIdOf(state, 'app-conf')).toBe('cfg1');
  });

  it('gives back what names nothing it knows', () => {
    expect(entityIdOf(state, 'gone')).toBe('gone');
  });
});
