/**
 * `shoal audit report` on the embedded log: the JSON and the HTML of a span of a signed
 * log — changes people made, refusals with their reasons, nodes that came and went, failed
 * tasks and how often, and the proof with the signing key's fingerprint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState, encode } from '@shoal/contracts';
import { EmbeddedEventLog } from '@shoal/eventlog';
import { newSigningKey } from '@shoal/runtime';
import type { AuditReport } from '@shoal/runtime';
import { writeSignedLog } from '../../../libs/runtime/src/audit-tampering';
import { EventBuilder, clusterInit, newTask, nodeDescription, serviceSpec } from '@shoal/testing';
import { auditReportCommand } from './audit-report';

describe('shoal audit report', () => {
  const key = newSigningKey().key;
  const dataDir = mkdtempSync(join(tmpdir(), 'shoal-audit-report-'));
  const b = new EventBuilder('c1');
  const web = serviceSpec('web', { kind: 'replicated', replicas: 1 });
  const failing = (state: TaskState) => b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state, at: b.now(), err: 'exit status 3' }] });
  const history = [
    clusterInit(b),
    b.event('NodeRegistered', { id: 'n1', role: 'worker', description: nodeDescription('node-1') }),
    b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'ready' }] }),
    b.event('ServiceCreated', { id: 's1', spec: web }),
    b.event('TasksCreated', { tasks: [newTask('t1', 's1', web)] }),
    b.event('TasksAllocated', { tasks: [{ id: 't1', attachments: [] }] }),
    b.event('TasksAssigned', { tasks: [{ id: 't1', nodeId: 'n1', why: 'node-1: the only ready node' }] }),
    b.event('TaskStatusesReported', { nodeId: 'n1', statuses: [{ id: 't1', state: TaskState.RUNNING, at: b.now() }] }),
    failing(TaskState.FAILED),
    b.event('ServiceRemoved', { id: 'nope' }),
    b.event('NodeStatusChanged', { nodes: [{ id: 'n1', state: 'down', message: 'heartbeat failure' }] }),
    // Out of the span asked for below (00:00:01 to 00:00:11 on the builder's clock).
    b.event('ServiceUpdated', { id: 's1', spec: serviceSpec('web', { kind: 'replicated', replicas: 3 }) }),
  ].map((event) => encode(event));
  const from = '2026-01-01T00:00:01Z';
  const to = '2026-01-01T00:00:11Z';

  beforeAll(async () => {
    const log = await EmbeddedEventLog.open({ dir: join(dataDir, 'log'), sync: false });
    await writeSignedLog(log, history, { key, everyRecords: 4 });
    await log.close();
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const run = async (args: Parameters<typeof auditReportCommand>[0]): Promise<{ code: number; out: string }> => {
    const saved = process.env.SHOAL_DATA_DIR;
    const savedBrokers = process.env.KAFKA_BROKERS;
    process.env.SHOAL_DATA_DIR = dataDir;
    delete process.env.KAFKA_BROKERS;
    const chunks: string[] = [];
    const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      chunks.push(String(chunk));
      return true;
    });
    try {
      return { code: await auditReportCommand(args), out: chunks.join('') };
    } finally {
      write.mockRestore();
      process.env.SHOAL_DATA_DIR = saved;
      if (savedBrokers !== undefined) process.env.KAFKA_BROKERS = savedBrokers;
      if (saved === undefined) delete process.env.SHOAL_DATA_DIR;
    }
  };

  it('--format json: who changed what and when, refusals and why, nodes, failed tasks, the proof and its key', async () => {
    const { code, out } = await run({ from, to, format: 'json' });
    expect(code).toBe(0);
    const report = JSON.parse(out) as AuditReport;
    expect(report.changes.map((change) => [change.type, change.what, change.by])).toEqual([
      ['ClusterInitialized', ['c1'], 'api/api-1'],
      ['ServiceCreated', ['s1'], 'api/api-1'],
    ]);
    expect(report.changes[1]!.at).toBe('2026-01-01T00:00:04.000Z');
    expect(report.refusals).toEqual([expect.objectContaining({ type: 'ServiceRemoved', status: 'rejected', reasons: [expect.stringContaining('nope')] })]);
    expect(report.nodes.map((node) => [node.node, node.change, node.message])).toEqual([
      ['n1', 'registered', undefined],
      ['n1', 'ready', undefined],
      ['n1', 'down', 'heartbeat failure'],
    ]);
    expect(report.failedTasks).toEqual([expect.objectContaining({ service: 's1', serviceName: 'web', failures: 1, tasks: 1, last: expect.objectContaining({ task: 't1', state: 'FAILED', message: 'exit status 3' }) })]);
    expect(report.automatic.orchestrator).toEqual({ TasksCreated: 1 });
    expect(report.proof.ok).toBe(true);
    expect(report.proof.checkpoints).toBeGreaterThanOrEqual(3);
    expect(report.proof.keys.map((use) => use.fingerprint)).toEqual([key.fingerprint]);
    // The record after the span is not in it.
    expect(report.changes.some((change) => change.type === 'ServiceUpdated')).toBe(false);
  });

  it('--format html: one file that opens offline, with the same findings and the key fingerprint', async () => {
    const { code, out } = await run({ from, to, format: 'html' });
    expect(code).toBe(0);
    expect(out.startsWith('<!doctype html>')).toBe(true);
    expect(out).toContain(key.fingerprint);
    expect(out).toContain('ServiceCreated');
    expect(out).toContain('heartbeat failure');
    expect(out).toContain('exit status 3');
    expect(out).toMatch(/class="ok">OK/);
    // Self-contained: no script, nothing loaded from anywhere.
    expect(out).not.toMatch(/<script|<link|\ssrc=|href=|url\(/i);
  });

  it('reports the whole log when no span is given', async () => {
    const report = JSON.parse((await run({})).out) as AuditReport;
    expect(report.changes.map((change) => change.type)).toContain('ServiceUpdated');
  });

  it('refuses a time it cannot read, and an unknown format, saying what to give', async () => {
    await expect(run({ from: 'yesterday' })).rejects.toThrow('--from yesterday: expected an ISO 8601 time');
    await expect(run({ format: 'pdf' })).rejects.toThrow('--format pdf: expected json or html');
  });
});
