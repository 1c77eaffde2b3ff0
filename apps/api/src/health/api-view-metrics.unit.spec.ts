/**
 * The API process's own view reports to its /metrics as every component's does: evolve's
 * verdicts on each record it applies (those it replayed at start-up included) and the time
 * each task took to run for the first time.
 */
import { TaskState } from '@shoal/contracts';
import { newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { startApi } from '../testing/api-harness';
import type { ApiHarness } from '../testing/api-harness';

describe("the API's view in the API process's /metrics", () => {
  let api: ApiHarness;
  beforeAll(async () => {
    api = await startApi();
  });
  afterAll(() => api.close());

  const metric = async (prefix: string): Promise<string[]> => {
    const { status, body } = await api.request('GET', '/metrics', { socket: true });
    expect(status).toBe(200);
    return String(body).split('\n').filter((line) => line.startsWith(prefix));
  };

  it("counts evolve's verdicts, from the record it replayed at start-up on, and times a task's first RUNNING", async () => {
    const b = api.events;
    const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
    const created = newTask('t1', 's1', web);
    await api.append(
      b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
      b.event('ServiceCreated', { id: 's1', spec: web }),
      b.event('TasksCreated', { tasks: [created] }),
      b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
      b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'x' }] }),
      b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
      // Refused: no such node.
      b.event('NodeRemoved', { id: 'n9' }),
    );
    // The cluster's ClusterInitialized, replayed before the API served, and six of the seven above.
    expect(await metric('shoal_verdicts_total{view="api"')).toEqual(
      expect.arrayContaining(['shoal_verdicts_total{view="api",outcome="applied",reason="none"} 7', expect.stringMatching(/^shoal_verdicts_total\{view="api",outcome="rejected",reason="[a-z-]+"\} 1$/)]),
    );
    expect(await metric('shoal_task_time_to_running_seconds_count{view="api"}')).toEqual(['shoal_task_time_to_running_seconds_count{view="api"} 1']);
  });
});
