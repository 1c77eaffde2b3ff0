/**
 * Traces across processes: the API, every component (`shoal run <component>`) and an agent
 * of simulated nodes on the real broker, each told by OpenTelemetry's own variables
 * (OTEL_TRACES_EXPORTER=otlp, OTEL_EXPORTER_OTLP_ENDPOINT) to send its spans to an OTLP/HTTP
 * receiver in this test (loopback). One `docker service create` is one trace: from the API's
 * request through each component's process, by way of the Kafka record headers, to the
 * dispatcher's report of the first task RUNNING.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { eventually } from '../../libs/testing/src/eventually';
import { ShoalCluster } from '../../libs/testing/src/processes/shoal-cluster';
import { ShoalProcesses } from '../../libs/testing/src/processes/shoal-processes';

interface OtlpValue {
  readonly stringValue?: string;
  readonly intValue?: string | number;
  readonly arrayValue?: { readonly values?: readonly OtlpValue[] };
}
interface OtlpAttribute {
  readonly key: string;
  readonly value: OtlpValue;
}
interface OtlpSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly startTimeUnixNano: string;
  readonly attributes?: readonly OtlpAttribute[];
}
interface OtlpRequest {
  readonly resourceSpans?: readonly { readonly resource?: { readonly attributes?: readonly OtlpAttribute[] }; readonly scopeSpans?: readonly { readonly spans?: readonly OtlpSpan[] }[] }[];
}

/** A span as received, with the service that sent it. */
interface Received {
  readonly service: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly start: bigint;
  readonly attributes: Readonly<Record<string, unknown>>;
}

/** OTLP/JSON ids are hex; some encoders send base64: read either as hex. */
const hex = (id: string | undefined): string => (!id ? '' : /^[0-9a-f]+$/.test(id) ? id : Buffer.from(id, 'base64').toString('hex'));

const valueOf = (value: OtlpValue): unknown =>
  value.arrayValue ? (value.arrayValue.values ?? []).map(valueOf) : value.intValue !== undefined ? Number(value.intValue) : value.stringValue;

const attributesOf = (attributes: readonly OtlpAttribute[] = []): Record<string, unknown> => Object.fromEntries(attributes.map((a) => [a.key, valueOf(a.value)]));

/** An OTLP/HTTP (JSON) traces receiver on 127.0.0.1. */
const otlpReceiver = async (): Promise<{ server: Server; url: string; spans: Received[] }> => {
  const spans: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as OtlpRequest;
      for (const resource of body.resourceSpans ?? []) {
        const service = String(attributesOf(resource.resource?.attributes)['service.name']);
        for (const scope of resource.scopeSpans ?? []) {
          for (const span of scope.spans ?? []) {
            spans.push({
              service,
              traceId: hex(span.traceId),
              spanId: hex(span.spanId),
              parentSpanId: hex(span.parentSpanId),
              name: span.name,
              start: BigInt(span.startTimeUnixNano),
              attributes: attributesOf(span.attributes),
            });
          }
        }
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans };
};

describe('one docker service create, traced across the processes on Kafka', () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let deployment: ShoalProcesses;

  beforeAll(async () => {
    receiver = await otlpReceiver();
    deployment = ShoalProcesses.onKafka('traces', {
      SHOAL_HEALTH_PORT: '0',
      SHOAL_API_PORT: '0',
      SHOAL_DISPATCHER_PORT: '0',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
  });
  afterAll(async () => {
    await deployment?.close();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  it('is one trace from the API\'s request, through each component\'s process, to the RUNNING report', async () => {
    const cluster = await ShoalCluster.start(deployment);
    const agent = await cluster.agent('node-', { nodes: 2 });
    await eventually('two nodes are ready', async () => {
      const { body } = await cluster.request<{ Status: { State: string } }[]>('GET', `/nodes?filters=${encodeURIComponent(JSON.stringify({ role: ['worker'] }))}`);
      return body.filter((node) => node.Status.State === 'ready').length === 2 || undefined;
    }, { timeoutMs: 90_000, explain: () => ({ agent: agent.output.slice(-3000), dispatcher: cluster.instances('dispatcher')[0]?.process.output.slice(-3000) }) });

    const created = await cluster.request<{ ID: string }>('POST', '/v1.47/services/create', {
      Name: 'web',
      TaskTemplate: { ContainerSpec: { Image: 'nginx:1.27' } },
      Mode: { Replicated: { Replicas: 2 } },
    });
    expect(created.status).toBe(201);

    // Each process sends its spans in batches, every few seconds.
    const request = await eventually('the API sent its request\'s span', () => receiver.spans.find((span) => span.name === 'POST /services/create'), 60_000);
    const traceId = request.traceId;
    const report = await eventually(
      'the dispatcher sent the span of its RUNNING report',
      () => receiver.spans.find((span) => span.traceId === traceId && span.name === 'dispatcher tick' && ((span.attributes['shoal.task.states'] as string[] | undefined) ?? []).includes('RUNNING')),
      90_000,
    );

    const path: Received[] = [];
    for (let at: Received | undefined = report; at; at = receiver.spans.find((span) => span.spanId === at!.parentSpanId)) path.unshift(at);
    expect(path.map((span) => `${span.service}: ${span.name}`)).toEqual([
      'shoal-api: POST /services/create',
      'shoal-orchestrator: orchestrator tick',
      'shoal-allocator: allocator tick',
      'shoal-scheduler: scheduler tick',
      'shoal-dispatcher: dispatcher assign',
      'shoal-dispatcher: dispatcher tick',
    ]);
    expect(path.every((span) => span.traceId === traceId)).toBe(true);
    expect(path.map((span) => span.attributes['shoal.record.types'] ?? [span.attributes['shoal.record.type']])).toEqual([
      ['ServiceCreated'],
      ['TasksCreated'],
      ['TasksAllocated'],
      ['TasksAssigned'],
      ['TasksAssigned'],
      ['TaskStatusesReported'],
    ]);
    // Causal order: no span starts before the one that caused it (one host, one clock).
    const starts = path.map((span) => span.start);
    expect(starts).toEqual([...starts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(request.attributes).toMatchObject({ 'http.route': '/services/create', 'http.response.status_code': 201 });
  }, 300_000);
});
