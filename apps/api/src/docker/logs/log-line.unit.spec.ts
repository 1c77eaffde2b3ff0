import { ZERO_TIME, detailsOf, dockerTimestamp, linePayload, queryEscape } from './log-line';
import type { LogMessage } from '@shoal/protocol';

const line = (overrides: Partial<LogMessage> = {}): LogMessage => ({
  taskId: 'task1',
  serviceId: 'svc1',
  nodeId: 'node1',
  at: '2026-03-04T05:06:07.089Z',
  stream: 'STDOUT',
  data: Buffer.from('listening on :80\n'),
  ...overrides,
});

describe('a line of task output in a logs body', () => {
  it('is the line alone without timestamps or details', () => {
    expect(linePayload(line(), { timestamps: false, details: false }).toString()).toBe('listening on :80\n');
  });

  it("puts the task's context before the line as Docker's sorted attributes: node, service, task", () => {
    expect(linePayload(line(), { timestamps: false, details: true }).toString()).toBe(
      'com.docker.swarm.node.id=node1,com.docker.swarm.service.id=svc1,com.docker.swarm.task.id=task1 listening on :80\n',
    );
  });

  it('puts the time first, then the details, each followed by one space', () => {
    expect(linePayload(line(), { timestamps: true, details: true }).toString()).toBe(
      '2026-03-04T05:06:07.089000000Z com.docker.swarm.node.id=node1,com.docker.swarm.service.id=svc1,com.docker.swarm.task.id=task1 listening on :80\n',
    );
    expect(linePayload(line(), { timestamps: true, details: false }).toString()).toBe('2026-03-04T05:06:07.089000000Z listening on :80\n');
  });

  it("writes an engine's time to the nanosecond as the agent sent it, whole", () => {
    expect(linePayload(line({ at: '2026-03-04T05:06:07.089123457Z' }), { timestamps: true, details: false }).toString()).toBe('2026-03-04T05:06:07.089123457Z listening on :80\n');
  });

  it('keeps the bytes of the line as they are', () => {
    const data = Buffer.from([0xff, 0x00, 0x0a]);
    expect([...linePayload(line({ data }), { timestamps: false, details: false })]).toEqual([0xff, 0x00, 0x0a]);
  });

  it("writes times as Go's RFC3339NanoFixed in UTC: nine digits of fraction, Z", () => {
    expect(dockerTimestamp('2026-03-04T05:06:07Z')).toBe('2026-03-04T05:06:07.000000000Z');
    expect(dockerTimestamp('2026-03-04T05:06:07.123456789Z')).toBe('2026-03-04T05:06:07.123456789Z');
    expect(dockerTimestamp('2026-03-04T05:06:07.1234567891Z')).toBe('2026-03-04T05:06:07.123456789Z');
    expect(dockerTimestamp('2026-03-04T07:06:07.5+02:00')).toBe('2026-03-04T05:06:07.500000000Z');
    expect(dockerTimestamp('not a time')).toBe(ZERO_TIME);
  });

  it("escapes keys and values as Go's url.QueryEscape, which the docker CLI unescapes", () => {
    expect(queryEscape('a b,c=d/é~_.-')).toBe('a+b%2Cc%3Dd%2F%C3%A9~_.-');
    expect(detailsOf({ nodeId: 'n 1', serviceId: 's,1', taskId: 't=1' })).toBe(
      'com.docker.swarm.node.id=n+1,com.docker.swarm.service.id=s%2C1,com.docker.swarm.task.id=t%3D1',
    );
  });

  it('parses back as the docker CLI parses it: split at the first spaces, pairs by comma, unescaped', () => {
    const payload = linePayload(line({ nodeId: 'n 1', data: Buffer.from('a b c\n') }), { timestamps: true, details: true }).toString();
    const [time, details, rest] = [payload.split(' ')[0], payload.split(' ')[1], payload.split(' ').slice(2).join(' ')];
    expect(time).toBe('2026-03-04T05:06:07.089000000Z');
    const pairs = Object.fromEntries(details!.split(',').map((pair) => pair.split('=').map((part) => decodeURIComponent(part.replace(/\+/g, ' ')))));
    expect(pairs).toEqual({ 'com.docker.swarm.node.id': 'n 1', 'com.docker.swarm.service.id': 'svc1', 'com.docker.swarm.task.id': 'task1' });
    expect(rest).toBe('a b c\n');
  });
});
