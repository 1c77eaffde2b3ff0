import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { shoalSettings } from '@shoal/config';
import { latestSnapshots } from '@shoal/eventlog';
import { haltMessage, proveLog, verifyLog } from '@shoal/runtime';
import type { ProofReport, VerifyReport } from '@shoal/runtime';
import { withLog } from './log-source';
import { progressReporter } from './progress';
import { readProgress } from './read-progress';
import { proveOptions } from './audit-proof-options';
import type { ProofFlags } from './audit-proof-options';

/** The proof's lines: checkpoints, keys, and the first difference if any. */
export const proofLines = (proof: ProofReport): string[] => [
  `chain     ${proof.end.chain} through offset ${proof.end.through} (give --expect ${proof.end.through}:${proof.end.chain} to a later verify)`,
  `signed    ${proof.checkpoints} checkpoints cover offsets 0..${proof.signedThrough}${proof.unsigned > 0 ? `; ${proof.unsigned} record${proof.unsigned === 1 ? '' : 's'} after them not yet signed` : ''}`,
  ...proof.keys.map((key) => `key       ${key.fingerprint} (${key.trust === 'given' ? 'given by the auditor' : key.trust === 'first use' ? `trusted on first use at offset ${key.since}: compare it with the operator's` : `announced at offset ${key.since} by the key before`})`),
  ...(proof.keys.length === 0 ? ['key       none: the log carries no checkpoint (set SHOAL_AUDIT_SIGNING_KEY on the reaper)'] : []),
  proof.difference
    ? `proof     FAIL at offset ${proof.difference.offset}: ${proof.difference.kind}: ${proof.difference.detail}`
    : proof.checkpoints > 0
      ? 'proof     OK: the log is the history the checkpoints signed'
      : 'proof     NONE: nothing signed to check against',
  ...proof.problems.slice(1, 10).map((problem) => `          also at offset ${problem.offset}: ${problem.kind}: ${problem.detail}`),
];

export const auditVerify = (options: { snapshots?: string; json?: boolean } & ProofFlags): Promise<number> =>
  withLog(async (log) => {
    // Every core checks the log's segments unless told otherwise; the replays below stay on this one.
    const prove = proveOptions({ ...options, workers: options.workers ?? availableParallelism() });
    const dir = options.snapshots ?? join(shoalSettings().SHOAL_DATA_DIR, 'snapshots');
    // On a terminal, each pass over the log as it goes (stderr only: stdout stays the result).
    const progress = progressReporter(process.stderr);
    let phase = 'proof';
    let passes = 0;
    const observed = readProgress(log, progress, () => `${phase} pass ${++passes}: read`);
    let proof: ProofReport;
    let report: VerifyReport;
    try {
      proof = await proveLog(observed, prove);
      phase = 'replay';
      passes = 0;
      report = await verifyLog(observed, { snapshots: await latestSnapshots(dir) });
    } finally {
      progress.clear();
    }
    const ok = report.agree && !report.halted && proof.ok;
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ...report, ok, end: proof.end, proof })}\n`);
      return ok ? 0 : 1;
    }
    const { tally } = report;
    const lines = [
      `log       ${report.log} (${report.highWaterMark} records)`,
      ...proofLines(proof),
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
