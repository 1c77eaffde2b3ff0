import { TaskState } from '@shoal/contracts';
import { emptyState } from '@shoal/domain';
import type { Node, Service } from '@shoal/domain';
import { newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { FilterError, NODE_FILTERS, SERVICE_FILTERS, TASK_FILTERS, checkDesiredStates, checkNodeFilters, labelMatches, nodeMatches, parseFilters, serviceMatches, taskFilter } from './filters';

describe("Docker's filters parameter", () => {
  it('reads the map form and the old list form', () => {
    expect(parseFilters('{"name":{"web":true,"db":false}}', SERVICE_FILTERS)).toEqual(new Map([['name', ['web']]]));
    expect(parseFilters('{"name":["web","db"]}', SERVICE_FILTERS)).toEqual(new Map([['name', ['web', 'db']]]));
    expect(parseFilters(undefined, SERVICE_FILTERS).size).toBe(0);
  });

  it("answers Docker's invalid filter for an unknown key or bad JSON", () => {
    expect(() => parseFilters('{"colour":{"red":true}}', SERVICE_FILTERS)).toThrow(new FilterError("Invalid filter 'colour'"));
    expect(() => parseFilters('{', SERVICE_FILTERS)).toThrow(FilterError);
    expect(() => parseFilters('{"name":"web"}', SERVICE_FILTERS)).toThrow(/expected a list or a map/);
  });

  it('matches labels by key or key=value', () => {
    expect(labelMatches({ a: '1' }, 'a')).toBe(true);
    expect(labelMatches({ a: '1' }, 'a=1')).toBe(true);
    expect(labelMatches({ a: '1' }, 'a=2')).toBe(false);
    expect(labelMatches(undefined, 'a')).toBe(false);
  });
});

describe('service filters', () => {
  const web: Service = { id: 'abc123', spec: serviceSpec('web', { kind: 'replicated', replicas: 1 }, { labels: { tier: 'front' } }), version: 1, createdAt: 't', updatedAt: 't' };
  const agent: Service = { id: 'def456', spec: serviceSpec('agent', { kind: 'global' }), version: 1, createdAt: 't', updatedAt: 't' };
  const pick = (raw: string) => [web, agent].filter((s) => serviceMatches(parseFilters(raw, SERVICE_FILTERS), s)).map((s) => s.spec.name);

  it('by id prefix, name prefix, label and mode', () => {
    expect(pick('{"id":{"abc":true}}')).toEqual(['web']);
    expect(pick('{"name":{"ag":true}}')).toEqual(['agent']);
    expect(pick('{"label":{"tier=front":true}}')).toEqual(['web']);
    expect(pick('{"mode":{"global":true}}')).toEqual(['agent']);
    expect(pick('{"mode":{"global":true},"name":{"web":true}}')).toEqual([]);
    expect(pick('{}')).toEqual(['web', 'agent']);
  });
});

describe('node filters', () => {
  const node = (id: string, hostname: string, role: 'worker' | 'manager', labels: Record<string, string>): Node => ({
    id,
    description: nodeDescription(hostname),
    spec: { labels, role, availability: 'active' },
    version: 1,
    status: { state: 'ready', at: 't' },
    createdAt: 't',
    updatedAt: 't',
  });
  const nodes = [node('n1', 'alpha', 'worker', { zone: 'east' }), node('n2', 'beta', 'manager', {})];
  const pick = (raw: string) => nodes.filter((n) => nodeMatches(parseFilters(raw, NODE_FILTERS), n)).map((n) => n.id);

  it('by id, name, role and node label', () => {
    expect(pick('{"id":{"n2":true}}')).toEqual(['n2']);
    expect(pick('{"name":{"alp":true}}')).toEqual(['n1']);
    expect(pick('{"role":{"manager":true}}')).toEqual(['n2']);
    expect(pick('{"node.label":{"zone=east":true}}')).toEqual(['n1']);
  });

  it("refuses a role or membership Docker does not know, in Docker's words; pending membership matches no node", () => {
    const check = (raw: string) => () => checkNodeFilters(parseFilters(raw, NODE_FILTERS));
    expect(check('{"role":["bogus"]}')).toThrow(new FilterError("Invalid role filter: 'bogus'"));
    expect(check('{"membership":{"maybe":true}}')).toThrow(new FilterError("Invalid membership filter: 'maybe'"));
    expect(check('{"role":["worker","manager"],"membership":["accepted","pending"]}')).not.toThrow();
    expect(pick('{"membership":["pending"]}')).toEqual([]);
    expect(pick('{"membership":["accepted"]}')).toEqual(['n1', 'n2']);
  });
});

describe('task filters', () => {
  const state = emptyState();
  const spec = serviceSpec('web');
  state.services.set('s1', { id: 's1', spec, version: 1, createdAt: 't', updatedAt: 't' });
  state.nodes.set('n1', { id: 'n1', description: nodeDescription('alpha'), spec: { labels: {}, role: 'worker', availability: 'active' }, version: 1, status: { state: 'ready', at: 't' }, createdAt: 't', updatedAt: 't' });
  const running = { ...newTask('t1', 's1', spec, { slot: 1 }), nodeId: 'n1', createdAt: 't', status: { state: TaskState.RUNNING, at: 't' } };
  const old = { ...newTask('t2', 's1', spec, { slot: 1, desiredState: TaskState.SHUTDOWN }), createdAt: 't', status: { state: TaskState.SHUTDOWN, at: 't' } };
  const pick = (raw: string) => {
    const filters = parseFilters(raw, TASK_FILTERS);
    checkDesiredStates(filters);
    return [running, old].filter(taskFilter(state, filters)).map((task) => task.id);
  };

  it('by service name or id, node hostname or id, desired state, name and id', () => {
    expect(pick('{"service":{"web":true}}')).toEqual(['t1', 't2']);
    expect(pick('{"service":{"s1":true}}')).toEqual(['t1', 't2']);
    expect(pick('{"service":{"db":true}}')).toEqual([]);
    expect(pick('{"node":{"alpha":true}}')).toEqual(['t1']);
    expect(pick('{"node":{"n1":true}}')).toEqual(['t1']);
    expect(pick('{"desired-state":{"running":true}}')).toEqual(['t1']);
    expect(pick('{"desired-state":{"shutdown":true}}')).toEqual(['t2']);
    expect(pick('{"name":{"web.1":true}}')).toEqual(['t1', 't2']);
    expect(pick('{"id":{"t2":true}}')).toEqual(['t2']);
  });

  it("matches label on the service's labels, as SwarmKit does, never on the container's", () => {
    const labelled = serviceSpec('web', { kind: 'replicated', replicas: 1 }, { labels: { tier: 'front' } });
    state.services.set('s1', { id: 's1', spec: labelled, version: 1, createdAt: 't', updatedAt: 't' });
    expect(pick('{"label":["tier"]}')).toEqual(['t1', 't2']);
    expect(pick('{"label":["tier=front"]}')).toEqual(['t1', 't2']);
    expect(pick('{"label":["tier=back"]}')).toEqual([]);
    state.services.set('s1', { id: 's1', spec: { ...spec, task: { container: { ...spec.task.container, labels: { tier: 'front' } } } }, version: 1, createdAt: 't', updatedAt: 't' });
    expect(pick('{"label":["tier"]}')).toEqual([]);
    state.services.set('s1', { id: 's1', spec, version: 1, createdAt: 't', updatedAt: 't' });
  });

  it('resolves a service name exactly before trying it as an id prefix, as Docker does', () => {
    state.services.set('webapp', { id: 'webapp', spec: serviceSpec('other'), version: 1, createdAt: 't', updatedAt: 't' });
    const elsewhere = { ...newTask('t3', 'webapp', spec), createdAt: 't', status: { state: TaskState.NEW, at: 't' } };
    const filters = parseFilters('{"service":{"web":true}}', TASK_FILTERS);
    expect([running, old, elsewhere].filter(taskFilter(state, filters)).map((task) => task.id)).toEqual(['t1', 't2']);
    const byPrefix = parseFilters('{"service":{"weba":true}}', TASK_FILTERS);
    expect([running, old, elsewhere].filter(taskFilter(state, byPrefix)).map((task) => task.id)).toEqual(['t3']);
    state.services.delete('webapp');
  });

  it("_up-to-date keeps the tasks that run the service's current task spec", () => {
    expect(pick('{"_up-to-date":{"true":true}}')).toEqual(['t1', 't2']);
    state.services.set('s1', { id: 's1', spec: { ...spec, mode: { kind: 'replicated', replicas: 3 } }, version: 2, createdAt: 't', updatedAt: 't' });
    expect(pick('{"_up-to-date":{"true":true}}')).toEqual(['t1', 't2']);
    state.services.set('s1', { id: 's1', spec: { ...spec, task: { container: { image: 'nginx:1.28' } } }, version: 3, createdAt: 't', updatedAt: 't' });
    expect(pick('{"_up-to-date":{"true":true}}')).toEqual([]);
    expect(pick('{}')).toEqual(['t1', 't2']);
    state.services.set('s1', { id: 's1', spec, version: 1, createdAt: 't', updatedAt: 't' });
  });

  it('refuses a desired state that is not a task state', () => {
    expect(() => pick('{"desired-state":{"sleeping":true}}')).toThrow(new FilterError("Invalid desired-state filter: 'sleeping'"));
    // Any task state's name, in any case, as Docker's daemon takes it.
    expect(() => pick('{"desired-state":["Complete","remove","ORPHANED"]}')).not.toThrow();
  });
});
