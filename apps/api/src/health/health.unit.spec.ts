import { TaskState, encode } from '@shoal/contracts';
import { Projection } from '@shoal/domain';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startStandaloneApi } from '../spec-support/standalone-api';
import type { StandaloneApi } from '../spec-support/standalone-api';
import { HealthModule } from './health.module';

describe('/healthz, /statez, /readyz and /metrics', () => {
  let api: StandaloneApi;
  const b = new EventBuilder('c1');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 2 });
  const history = [
    clusterInit(b),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
    b.event('NodeRegistered', { id: 'n2', role: 'manager', description: nodeDescription('node-2') }),
    b.event('NodeStatusChanged', { nodes: [{ id: 'n2', state: 'down' }] }),
    b.event('ServiceCreated', { id: 's1', spec: web }),
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web), newTask('t2', 's1', web, { slot: 2 })] }),
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }, { id: 't2', attachments: [] }] }),
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'x' }] }),
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
    b.event('NodeRemoved', { id: 'n9' }),
    '{"not":"an envelope"}',
    b.event('NetworkCreated', { id: 'net1', spec: { name: 'backend', driver: 'overlay' } }),
  ];

  beforeAll(async () => {
    api = await startStandaloneApi([HealthModule], { startView: false });
    await api.log.append(history.map((e) => ({ key: 'c1', value: typeof e === 'string' ? e : encode(e) })));
  });
  afterAll(() => api.close());

  it('is live at once, and ready only once its view has caught up with the log', async () => {
    const live = await api.get('/healthz');
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok', position: 0 });
    const behind = await api.get('/readyz');
    expect(behind.status).toBe(503);
    expect(await behind.json()).toEqual({ message: "the API's view is behind the log: at offset 0 of 12" });

    await api.view.start();
    const ready = await api.get('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ ready: true, position: 12, highWaterMark: 12 });
  });

  it('/statez gives the view\'s position and the hash a replay of the same records reaches', async () => {
    const replay = new Projection();
    history.forEach((e, offset) => replay.apply({ offset, value: typeof e === 'string' ? e : encode(e) }));
    const state = await api.get('/statez');
    expect(state.status).toBe(200);
    expect(await state.json()).toEqual({ position: 12, hash: replay.hash() });
    expect(replay.hash()).not.toBe(new Projection().hash());
  });

  it('reports the tally, the view position and the cluster by state in Prometheus text format', async () => {
    const res = await api.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
    const text = await res.text();
    const lines = text.split('\n');
    expect(lines).toEqual(
      expect.arrayContaining([
        '# TYPE shoal_records_total counter',
        'shoal_records_total{view="api",verdict="applied"} 10',
        'shoal_records_total{view="api",verdict="partial"} 0',
        'shoal_records_total{view="api",verdict="rejected"} 1',
        'shoal_records_total{view="api",verdict="poison"} 1',
        'shoal_view_position{view="api"} 12',
        'shoal_log_high_water_mark 12',
        'shoal_view_lag_records{view="api"} 0',
        'shoal_services{mode="replicated"} 1',
        'shoal_tasks{state="running",desired_state="running"} 1',
        'shoal_tasks{state="pending",desired_state="running"} 1',
        'shoal_nodes{state="ready",availability="active",role="worker"} 1',
        'shoal_nodes{state="down",availability="active",role="manager"} 1',
        'shoal_networks 1',
        // The process's own, from prom-client's defaults.
        '# TYPE process_resident_memory_bytes gauge',
        '# TYPE nodejs_heap_size_used_bytes gauge',
      ]),
    );
  });

  it('times each request by method, route as routed and status', async () => {
    await api.get('/statez');
    await api.get('/no/such/route');
    const lines = (await (await api.get('/metrics')).text()).split('\n');
    expect(lines).toEqual(expect.arrayContaining(['# TYPE shoal_api_request_duration_seconds histogram']));
    expect(lines.find((line) => line.startsWith('shoal_api_request_duration_seconds_count{method="GET",route="/statez",status="200"}'))).toMatch(/ [1-9]\d*$/);
    expect(lines.find((line) => line.startsWith('shoal_api_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'))).toMatch(/ 1$/);
    expect(lines.find((line) => line.startsWith('shoal_api_request_duration_seconds_bucket{le="+Inf",method="GET",route="/statez",status="200"}'))).toBeDefined();
  });
});
