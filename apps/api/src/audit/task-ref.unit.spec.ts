import { emptyState, evolve } from '@shoal/domain';
import { EventBuilder, newTask, serviceSpec } from '@shoal/testing';
import { taskIdOf } from './task-ref';

describe('taskIdOf', () => {
  const b = new EventBuilder('c1');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 3 });
  const state = emptyState();
  for (const event of [
    b.event('ServiceCreated', { id: 's1', spec: web }),
    b.event('TasksCreated', { tasks: [newTask('3g5lqaux7cinjx', 's1', web), newTask('72fas53ivlq8a', 's1', web, { slot: 2 }), newTask('72fas53ivlq8b', 's1', web, { slot: 3 })] }),
  ])
    evolve(state, event);

  it('reads the truncated id `docker service ps` prints as the one task it begins', () => {
    expect(taskIdOf(state, '3g5lqaux7cin')).toBe('3g5lqaux7cinjx');
  });

  it('keeps a full id, an ambiguous prefix and an id no live task has (a reaped task) as given', () => {
    expect(taskIdOf(state, '72fas53ivlq8a')).toBe('72fas53ivlq8a');
    expect(taskIdOf(state, '72fas53ivlq8')).toBe('72fas53ivlq8');
    expect(taskIdOf(state, 'gone-long-ago')).toBe('gone-long-ago');
  });
});
