import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TaskState } from '@shoal/contracts';
import type { NodeDescriptionMessage, TaskStatusMessage } from '@shoal/protocol';
import { ensureCa, issueNodeCertificate, issuerOf, newKeyPair, newRoot } from '@shoal/runtime';
import { nodeTlsInfo, toChangeMessage, toCompleteMessage, toIncrementalMessage, toNodeDescription, toStatusReport } from './protocol-mapping';

const message: NodeDescriptionMessage = {
  hostname: 'h1',
  platform: { os: 'linux', architecture: 'aarch64' },
  nanoCpus: 4e9,
  memoryBytes: 8e9,
  generic: [
    { kind: 'gpu', discrete: 2, named: '' },
    { kind: 'fpga', discrete: 0, named: 'FPGA-1' },
  ],
  engineVersion: '28.2.2',
  engineLabels: { disk: 'ssd' },
  plugins: [{ type: 'Network', name: 'overlay' }],
};

const status = (overrides: Partial<TaskStatusMessage>): TaskStatusMessage => ({
  taskId: 't1',
  state: TaskState.RUNNING,
  at: '2026-01-01T00:00:00.000Z',
  message: '',
  err: '',
  hasExitCode: false,
  exitCode: 0,
  ...overrides,
});

describe('agent protocol → contracts', () => {
  it('turns a node description into the one NodeRegistered carries', () => {
    expect(toNodeDescription(message, 'worker')).toEqual({
      hostname: 'h1',
      platform: { os: 'linux', architecture: 'aarch64' },
      resources: { nanoCpus: 4e9, memoryBytes: 8e9, generic: [{ kind: 'gpu', discrete: 2 }, { kind: 'fpga', named: 'FPGA-1' }] },
      engine: { version: '28.2.2', labels: { disk: 'ssd' }, plugins: [{ type: 'Network', name: 'overlay' }] },
    });
  });

  it('refuses a description the event could not carry, saying which field', () => {
    expect(toNodeDescription({ ...message, hostname: '' }, 'worker')).toMatch(/hostname/);
    expect(toNodeDescription({ ...message, nanoCpus: -1 }, 'worker')).toMatch(/nanoCpus/);
    expect(toNodeDescription(undefined, 'worker')).toMatch(/no node description/);
  });

  it('turns a status into a report, keeping the exit code only when there is one', () => {
    expect(toStatusReport(status({ state: TaskState.FAILED, err: 'exit 3', hasExitCode: true, exitCode: 3 }), new Date())).toEqual({
      id: 't1',
      state: TaskState.FAILED,
      at: '2026-01-01T00:00:00.000Z',
      err: 'exit 3',
      exitCode: 3,
    });
    expect(toStatusReport(status({ at: '' }), new Date('2026-02-02T00:00:00.000Z'))).toMatchObject({ at: '2026-02-02T00:00:00.000Z' });
    expect(toStatusReport(status({ exitCode: 9 }), new Date())).not.toHaveProperty('exitCode');
  });

  it("takes a status's container (its id and PID), and none when the agent sends no id", () => {
    const containerId = 'ab12'.padEnd(64, '3');
    expect(toStatusReport(status({ containerId, pid: 4242 }), new Date())).toMatchObject({ containerId, pid: 4242 });
    expect(toStatusReport(status({ state: TaskState.FAILED, hasExitCode: true, exitCode: 3, containerId, pid: 0 }), new Date())).toMatchObject({ exitCode: 3, containerId, pid: 0 });
    for (const none of [{}, { containerId: '', pid: 17 }]) {
      const report = toStatusReport(status(none), new Date());
      expect(report).not.toHaveProperty('containerId');
      expect(report).not.toHaveProperty('pid');
    }
  });

  it('refuses a status whose container id is not 64 hex digits or whose PID is negative', () => {
    expect(toStatusReport(status({ containerId: 'abc', pid: 1 }), new Date())).toMatch(/task t1: container id abc is not 64 hex digits/);
    expect(toStatusReport(status({ containerId: 'ab12'.padEnd(64, '3'), pid: -1 }), new Date())).toMatch(/pid -1 is not a non-negative integer/);
  });

  it('refuses a status with no task or an unknown state', () => {
    expect(toStatusReport(status({ taskId: '' }), new Date())).toMatch(/without a task id/);
    expect(toStatusReport(status({ state: 300 }), new Date())).toMatch(/300 is not a task state/);
  });

  it('sends a removal as the task id alone', () => {
    expect(toChangeMessage({ action: 'remove', taskId: 't9' })).toMatchObject({ action: 'REMOVE', assignment: { taskId: 't9', specJson: '' } });
  });

  it("sends a config's base64 as its bytes, and its removal as its id alone", () => {
    const config = { id: 'c1', name: 'app.conf', data: Buffer.from('port=80\n\u0000bin').toString('base64') };
    const complete = toCompleteMessage({ tasks: [], configs: [config] });
    expect(complete).toEqual({ type: 'COMPLETE', changes: [], configs: [{ action: 'UPDATE', config: { id: 'c1', name: 'app.conf', data: Buffer.from('port=80\n\u0000bin') } }] });
    const incremental = toIncrementalMessage({ tasks: [{ action: 'remove', taskId: 't9' }], configs: [{ action: 'remove', configId: 'c1' }] });
    expect(incremental.type).toBe('INCREMENTAL');
    expect(incremental.changes).toEqual([expect.objectContaining({ action: 'REMOVE' })]);
    expect(incremental.configs).toEqual([{ action: 'REMOVE', config: { id: 'c1', name: '', data: Buffer.alloc(0) } }]);
  });

  it("opens a secret's sealed bytes as it is sent, marked secret; one that cannot be opened is not sent at all", () => {
    const secret = { id: 'x1', name: 'db-password', data: 'c2VhbGVk', secret: true as const };
    const opened: string[] = [];
    const open = (id: string, sealed: string): Buffer | undefined => {
      opened.push(`${id}:${sealed}`);
      return id === 'x1' ? Buffer.from('hunter2') : undefined;
    };
    expect(toCompleteMessage({ tasks: [], configs: [secret, { ...secret, id: 'x2' }] }, open).configs).toEqual([
      { action: 'UPDATE', config: { id: 'x1', name: 'db-password', data: Buffer.from('hunter2'), secret: true } },
    ]);
    expect(opened).toEqual(['x1:c2VhbGVk', 'x2:c2VhbGVk']);
    expect(toIncrementalMessage({ tasks: [], configs: [{ action: 'update', config: secret }] }).configs).toEqual([]);
  });
});

describe("a node's TLS as NodeRegistered keeps it", () => {
  const ca = ensureCa(mkdtempSync(join(tmpdir(), 'shoal-mapping-ca-')));
  const next = newRoot(ca, 1, new Date());
  const issuer = issuerOf(next.root);

  it('keeps the roots the node reports as one bundle, each written as the dispatcher writes it, beside the issuer it verified', () => {
    const reported = `${ca.pem.trim()}\n\n${next.root.toString()}`;
    expect(nodeTlsInfo(reported, issuer)).toEqual({ trustRoot: ca.certificate.toString() + next.root.toString(), certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey });
    // An agent of a build that does not report its roots: none, and the issuer all the same.
    expect(nodeTlsInfo('', issuer)).toEqual({ trustRoot: '', certIssuerSubject: issuer.subject, certIssuerPublicKey: issuer.publicKey });
  });

  it('refuses roots that are not CA certificates, text that is not PEM, and more than a few roots', () => {
    const leaf = issueNodeCertificate(ca, { nodeId: 'n1', role: 'worker', publicKey: newKeyPair().publicKey, now: new Date() });
    expect(nodeTlsInfo(leaf.toString(), issuer)).toMatch(/not a CA's/);
    expect(nodeTlsInfo('-----BEGIN CERTIFICATE-----\nbm90IGEgY2VydGlmaWNhdGU=\n-----END CERTIFICATE-----\n', issuer)).toMatch(/not PEM certificates/);
    expect(nodeTlsInfo(ca.pem.repeat(40), issuer)).toMatch(/at most 16384/);
  });
});

