import type { PortConfig, ServiceSpec } from '@shoal/contracts';
import { UpdateWorld, image, replicated } from '@shoal/testing';
import { isTaskDirty } from './task-dirty';

const publishing = (spec: ServiceSpec, ...ports: PortConfig[]): ServiceSpec => ({ ...spec, endpoint: { mode: 'vip', ports } });
const port = (targetPort: number, publishedPort?: number): PortConfig => ({
  protocol: 'tcp',
  targetPort,
  publishMode: 'ingress',
  ...(publishedPort === undefined ? {} : { publishedPort }),
});

const constrained = (spec: ServiceSpec, ...constraints: string[]): ServiceSpec => ({
  ...spec,
  task: { ...spec.task, placement: { constraints } },
});

describe('isTaskDirty', () => {
  const base = replicated(1, {});
  const given = (next: ServiceSpec) => {
    const world = new UpdateWorld().service('s', base);
    world.update('s', next);
    const [task] = world.tasksOf('s');
    return { world, task: task!, service: world.service$('s'), node: world.state.nodes.get(task!.nodeId!)! };
  };

  it('given the task runs the current version, then it is clean', () => {
    const world = new UpdateWorld().service('s', base);
    expect(isTaskDirty(world.service$('s'), world.tasksOf('s')[0]!)).toBe(false);
  });

  it('given a scale change (a new version, the same task spec), then it is clean', () => {
    const { task, service } = given(replicated(3, {}));
    expect(service.version).toBe(2);
    expect(isTaskDirty(service, task)).toBe(false);
  });

  it('given a new image, then it is dirty', () => {
    const { task, service, node } = given(image('2', base));
    expect(isTaskDirty(service, task, node)).toBe(true);
  });

  it('given a forced update (forceUpdate bumped), then it is dirty', () => {
    const { task, service } = given({ ...base, task: { ...base.task, forceUpdate: 1 } });
    expect(isTaskDirty(service, task)).toBe(true);
  });

  it('given only the placement constraints changed, then it stays clean where its node meets them', () => {
    const meets = given(constrained(base, 'node.role==worker'));
    expect(isTaskDirty(meets.service, meets.task, meets.node)).toBe(false);
    const fails = given(constrained(base, 'node.role==manager'));
    expect(isTaskDirty(fails.service, fails.task, fails.node)).toBe(true);
    // Not knowing its node, it cannot tell: dirty.
    expect(isTaskDirty(meets.service, meets.task)).toBe(true);
  });

  it('given the constraints and the image changed, then it is dirty even where its node meets them', () => {
    const { task, service, node } = given(constrained(image('2', base), 'node.role==worker'));
    expect(isTaskDirty(service, task, node)).toBe(true);
  });

  describe('published ports (the service endpoint)', () => {
    const serving = publishing(base, port(80, 8080));
    const givenPorts = (next: ServiceSpec) => {
      const world = new UpdateWorld().service('s', serving);
      world.update('s', next);
      const [task] = world.tasksOf('s');
      return { world, task: task!, service: world.service$('s') };
    };

    it('given a published port changed, then the task given the old one is dirty', () => {
      const { task, service } = givenPorts(publishing(base, port(80, 8081)));
      expect(task.ports).toEqual([port(80, 8080)]);
      expect(isTaskDirty(service, task)).toBe(true);
    });

    it('given a port added, or every port taken away, then it is dirty', () => {
      expect(isTaskDirty(givenPorts(publishing(base, port(80, 8080), port(443, 8443))).service, givenPorts(serving).task)).toBe(true);
      const dropped = givenPorts(base);
      expect(isTaskDirty(dropped.service, dropped.task)).toBe(true);
    });

    it('given the same ports in a new version (a scale change), then it is clean; a port the allocator picked matches one asked for without a number', () => {
      expect(isTaskDirty(givenPorts(publishing(replicated(3, {}), port(80, 8080))).service, givenPorts(serving).task)).toBe(false);
      const world = new UpdateWorld().service('s', publishing(base, port(80)));
      world.update('s', publishing(replicated(2, {}), port(80)));
      const [task] = world.tasksOf('s');
      expect(task!.ports).toEqual([port(80, 30_000)]);
      expect(isTaskDirty(world.service$('s'), task!)).toBe(false);
    });

    it('the supervisor starts an update for a change of published ports alone', () => {
      const { world } = givenPorts(publishing(base, port(80, 9090)));
      expect(world.decide('s').proposals.map((p) => p.type)).toEqual(['ServiceUpdateStatusChanged', 'TaskDesiredStatesChanged', 'TasksCreated']);
      world.step('s');
      world.startAll();
      expect(world.desiredRunning('s').map((t) => t.ports)).toEqual([[port(80, 9090)]]);
    });
  });

  it('the supervisor leaves tasks whose nodes meet new constraints alone, and moves the others', () => {
    const stays = given(constrained(base, 'node.role==worker'));
    expect(stays.world.decide('s')).toEqual({ proposals: [] });
    const moves = given(constrained(base, 'node.role==manager'));
    expect(moves.world.decide('s').proposals.map((p) => p.type)).toEqual(['ServiceUpdateStatusChanged', 'TaskDesiredStatesChanged', 'TasksCreated']);
  });
});
