/**
 * A broker outage under the API: a broker of the test's own, stopped under a running API.
 * An intent gets 503 with Retry-After and a message that names no broker address and no
 * kafkajs internals, and — a send to a broker that went away may have reached it — does not
 * claim the request was not applied; a read of the log is 503 the same way.
 */
import { LocalKafkaBroker } from '../../../infra/kafka/broker';
import { startApi } from './testing/api-harness';
import type { ApiHarness } from './testing/api-harness';

jest.setTimeout(120_000);

describe('the API during a broker outage', () => {
  let broker: LocalKafkaBroker;
  let api: ApiHarness;
  beforeAll(async () => {
    broker = await LocalKafkaBroker.start();
    api = await startApi({ kafka: { brokers: broker.brokers, topic: 'shoal-outage.events' } });
  });
  afterAll(async () => {
    await api.close().catch(() => undefined);
    await broker.stop();
  });

  it('answers an intent 503 with Retry-After, leaking neither the address nor kafkajs', async () => {
    const create = (name: string) =>
      api.request('POST', '/services/create', { socket: true, body: { Name: name, TaskTemplate: { ContainerSpec: { Image: 'nginx' } } } });
    expect((await create('before')).status).toBe(201);
    await broker.stop();
    const answer = await create('during');
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('5');
    const message = (answer.body as { message: string }).message;
    expect(message).toMatch(/^the event log is unavailable: the request may or may not have been applied/);
    for (const address of broker.brokers) expect(message).not.toContain(address);
    expect(message).not.toMatch(/KafkaJS|Connection/);

    // A read of the log (the audit's) is 503 too, and says nothing was applied: a read writes nothing.
    const read = await api.request('GET', '/shoal/v1/audit/events', { socket: true });
    expect(read.status).toBe(503);
    expect(read.headers['retry-after']).toBe('5');
    const readMessage = (read.body as { message: string }).message;
    expect(readMessage).toBe('the event log is unavailable: the request was not applied; try again later');
    for (const address of broker.brokers) expect(readMessage).not.toContain(address);
  });
});
