import { auditReport } from '@shoal/runtime';
import { withLog } from './log-source';
import { proveOptions } from './audit-proof-options';
import type { ProofFlags } from './audit-proof-options';
import { reportHtml } from './audit-report-html';

export type ReportFormat = 'json' | 'html';

/** A time as the auditor gives it: ISO 8601 (a date alone is its midnight UTC). */
export const parseTime = (flag: string, value: string): Date => {
  const time = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(time.getTime())) throw new Error(`${flag} ${value}: expected an ISO 8601 time, e.g. 2026-11-25T20:00:00Z or 2026-11-25`);
  return time;
};

export const auditReportCommand = (options: { from?: string; to?: string; format?: string } & ProofFlags): Promise<number> => {
  const format = options.format ?? 'json';
  if (format !== 'json' && format !== 'html') throw new Error(`--format ${format}: expected json or html`);
  const from = options.from ? parseTime('--from', options.from) : new Date(0);
  const to = options.to ? parseTime('--to', options.to) : new Date('9999-12-31T23:59:59.999Z');
  if (from > to) throw new Error(`--from ${options.from} is after --to ${options.to}`);
  const prove = proveOptions(options);
  return withLog(async (log) => {
    const report = await auditReport(log, { from, to }, prove);
    process.stdout.write(format === 'html' ? reportHtml(report) : `${JSON.stringify(report, null, 2)}\n`);
    return report.proof.ok ? 0 : 1;
  });
};
