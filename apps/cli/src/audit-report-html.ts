/** The audit report as one HTML file: inline style, no script, nothing fetched, so it opens offline. */
import type { AuditReport } from '@shoal/runtime';

const escape = (text: unknown): string =>
  String(text).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const table = (heads: readonly string[], rows: readonly (readonly unknown[])[], empty: string): string =>
  rows.length === 0
    ? `<p class="none">${escape(empty)}</p>`
    : `<table><thead><tr>${heads.map((h) => `<th>${escape(h)}</th>`).join('')}</tr></thead><tbody>${rows
        .map((row) => `<tr>${row.map((cell) => `<td>${escape(cell)}</td>`).join('')}</tr>`)
        .join('')}</tbody></table>`;

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#111}h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.25em .5em;border-bottom:1px solid #eee;vertical-align:top}th{background:#f4f4f4}
code,td{font-family:ui-monospace,monospace;font-size:12px}.ok{color:#060;font-weight:bold}.fail{color:#a00;font-weight:bold}.none{color:#666}`;

export const reportHtml = (report: AuditReport): string => {
  const { proof } = report;
  const verdict = proof.difference
    ? `<p class="fail">FAIL at offset ${escape(proof.difference.offset)}: ${escape(proof.difference.kind)}: ${escape(proof.difference.detail)}</p>`
    : proof.checkpoints > 0
      ? `<p class="ok">OK: the log is the history ${escape(proof.checkpoints)} signed checkpoints cover (offsets 0..${escape(proof.signedThrough)}; ${escape(proof.unsigned)} after them not yet signed)</p>`
      : '<p class="none">Nothing signed: the log carries no checkpoint.</p>';
  const automatic = Object.entries(report.automatic).flatMap(([component, types]) => Object.entries(types).map(([type, count]) => [component, type, count]));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Shoal audit report ${escape(report.from)} to ${escape(report.to)}</title><style>${STYLE}</style></head>
<body>
<h1>Shoal audit report</h1>
<p>Log <code>${escape(report.log)}</code>, from ${escape(report.from)} to ${escape(report.to)}${report.offsets ? ` (offsets ${escape(report.offsets.first)} to ${escape(report.offsets.last)})` : ' (no record in this span)'}.</p>
<h2>Verification</h2>
${verdict}
${table(['signing key fingerprint', 'trust', 'since offset'], proof.keys.map((k) => [k.fingerprint, k.trust, k.since]), 'No signing key: nothing was signed.')}
<p>Chain hash through offset ${escape(proof.end.through)}: <code>${escape(proof.end.chain)}</code></p>
<h2>Changes people made (${escape(report.changes.length)})</h2>
${table(['offset', 'time', 'by', 'change', 'what'], report.changes.map((c) => [c.offset, c.at, c.by, c.type, c.what.join(', ')]), 'None.')}
<h2>What the control plane did</h2>
${table(['component', 'record', 'count'], automatic, 'Nothing.')}
<h2>Refusals (${escape(report.refusals.length)})</h2>
${table(['offset', 'verdict', 'record', 'by', 'why'], report.refusals.map((r) => [r.offset, r.status, r.type ?? '(undecodable)', r.by ?? '', r.reasons.join('; ')]), 'None.')}
<h2>Nodes that came and went (${escape(report.nodes.length)})</h2>
${table(['offset', 'time', 'node', 'name', 'change', 'message'], report.nodes.map((n) => [n.offset, n.at, n.node, n.name ?? '', n.change, n.message ?? '']), 'None.')}
<h2>Tasks that failed</h2>
${table(['service', 'name', 'failures', 'tasks', 'last failure'], report.failedTasks.map((f) => [f.service, f.serviceName ?? '', f.failures, f.tasks, `${f.last.at} ${f.last.task} ${f.last.state}${f.last.message ? `: ${f.last.message}` : ''}`]), 'None.')}
</body></html>
`;
};
