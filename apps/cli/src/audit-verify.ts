import { join } from 'node:path';
import { latestSnapshots } from '@shoal/eventlog';
import { haltMessage, verifyLog } from '@shoal/runtime';
import { withLog } from './log-source';

export const auditVerify = (options: { snapshots?: string; json?: boolean }): Promise<number> =>
  withLog(async (log) => {
    const dir = options.snapshots ?? join(process.env.SHOAL_DATA_DIR ?? '.shoal', 'snapshots');
    const report = await verifyLog(log, { snapshots: await latestSnapshots(dir) });
    const ok = report.agree && !report.halted;
    if (options.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return ok ? 0 : 1;
    }
    const { tally } = report;
    const lines = [
      `log       ${report.log} (${report.highWaterMark} records)`,
      ...report.checks.map((check) => `${check.agrees ? 'ok  ' : 'FAIL'}      ${check.name}: ${check.hash} at offset ${check.position}`),
      `records   ${tally.applied} applied, ${tally.partial} partial, ${tally.rejected} rejected, ${tally.poison} poison${tally.upcast ? ` (${tally.upcast} upcast from older versions)` : ''}`,
      report.agree ? `verdict   AGREE: every replay reached ${report.hash}` : 'verdict   DISAGREE: replays reached different states',
      ...(report.halted ? [`stopped   ${haltMessage(report.halted)}`] : []),
    ];
    if (report.refusals.length > 0) {
      lines.push('refused and poison records:');
      for (const refusal of report.refusals) {
        const what = [refusal.type ?? '(unknown type)', refusal.id ? `id ${refusal.id}` : '', refusal.by ? `by ${refusal.by}` : ''].filter(Boolean).join(' ');
        lines.push(`  @${refusal.offset} ${refusal.status} ${what}: ${refusal.reasons.join('; ')}`);
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
    return ok ? 0 : 1;
  });
