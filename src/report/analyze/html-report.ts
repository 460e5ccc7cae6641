// report.html: one self-contained page (inline CSS and SVG, no scripts, no network) with the bucket
// table, a bar chart of bucket sizes, failures, and one collapsible section per dump. Every piece
// of text from a dump or a debugger goes through escapeHtml: dump paths, exception names and
// frame text are attacker-controlled in a crash-triage setting. Records are streamed from
// records.ndjson straight into the file, so the page for 10,000 dumps never sits in memory.
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { AnalyzeDumpRecord, AnalyzeSummary, SummaryBucket } from './analyze-record.js';
import { escapeHtml } from '../html-escape.js';
import { frameText } from './signature.js';

export const REPORT_FILE = 'report.html';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.muted{color:#667085}.counts span{display:inline-block;margin-right:18px}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border-bottom:1px solid #e4e7ec;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f5f7fa;font-weight:600}td.num{text-align:right;font-variant-numeric:tabular-nums}
code,.mono{font-family:ui-monospace,SFMono-Regular,Consolas,monospace;font-size:12.5px;word-break:break-all}
details{border:1px solid #e4e7ec;border-radius:6px;margin:6px 0;padding:4px 10px}summary{cursor:pointer}
.bad{color:#b42318}.ok{color:#067647}ol.frames{margin:4px 0;padding-left:28px}
svg text{font:12px ui-monospace,monospace;fill:#1d2330}
`;

function writer(stream: WriteStream) {
  return async (chunk: string) => {
    if (!stream.write(chunk)) await once(stream, 'drain');
  };
}

/** Writes the report; `records` is iterated once (pass readRecords(…) to stream from disk). */
export async function writeHtmlReport(
  path: string,
  summary: AnalyzeSummary,
  records: AsyncIterable<AnalyzeDumpRecord>,
): Promise<void> {
  const stream = createWriteStream(path, { encoding: 'utf8' });
  const write = writer(stream);
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  await write(head(summary));
  await write(bucketSection(summary));
  await write(failureSection(summary));
  await write('<h2>Dumps</h2>\n<div id="dumps">\n');
  for await (const record of records) await write(dumpSection(record));
  await write('</div>\n</body>\n</html>\n');
  stream.end();
  await done;
}

function head(summary: AnalyzeSummary): string {
  const top = summary.topException;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<title>cdb-harness analyze: ${summary.dumps} dumps, ${summary.buckets.length} buckets</title>
<style>${CSS}</style>
</head>
<body>
<h1>cdb-harness analyze</h1>
<div class="muted">generated ${escapeHtml(summary.generatedAt)} · engine ${escapeHtml(summary.engines.join(', ') || 'none')} · signature algorithm <code>${escapeHtml(summary.algorithm)}</code>${summary.interrupted === true ? ' · <span class="bad">interrupted: partial results</span>' : ''}</div>
<p class="counts"><span id="count-dumps"><b>${summary.dumps}</b> dumps</span><span id="count-ok" class="ok"><b>${summary.ok}</b> ok</span><span id="count-failed" class="${summary.failed > 0 ? 'bad' : ''}"><b>${summary.failed}</b> failed</span><span id="count-quarantined"><b>${summary.quarantined.length}</b> quarantined</span><span><b>${summary.buckets.length}</b> buckets</span>${top ? `<span>top exception <code>${escapeHtml(top.code)}</code> ${escapeHtml(top.name)} (${top.count})</span>` : ''}</p>
`;
}

function bucketSection(summary: AnalyzeSummary): string {
  if (summary.buckets.length === 0) return '<h2>Buckets</h2>\n<p class="muted">No buckets.</p>\n';
  const rows = summary.buckets.map(bucketRow).join('');
  return `<h2>Buckets</h2>
${bucketChart(summary.buckets)}
<table id="buckets">
<thead><tr><th>count</th><th>bucket</th><th>signature</th><th>exception</th><th>first seen</th><th>last seen</th><th>representative</th><th>faulting module versions</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
`;
}

function bucketRow(b: SummaryBucket): string {
  const versions = b.moduleVersions
    .map((v) => `${escapeHtml(v.module)} ${escapeHtml(v.version ?? '?')} (${v.count})`)
    .join('<br>');
  return `<tr data-bucket-id="${escapeHtml(b.id)}"><td class="num">${b.count}</td><td><code>${escapeHtml(b.id)}</code></td><td><code>${escapeHtml(b.signature)}</code></td><td>${b.exception ? `<code>${escapeHtml(b.exception.code)}</code> ${escapeHtml(b.exception.name)}` : '—'}</td><td>${escapeHtml(b.firstSeen ?? '')}</td><td>${escapeHtml(b.lastSeen ?? '')}</td><td class="mono">${escapeHtml(b.representative)}</td><td>${versions}</td></tr>\n`;
}

/** Horizontal bars, one per bucket (at most 20), as inline SVG. */
function bucketChart(buckets: readonly SummaryBucket[]): string {
  const shown = buckets.slice(0, 20);
  const max = Math.max(1, ...shown.map((b) => b.count));
  const rowHeight = 22;
  const labelWidth = 150;
  const barWidth = 480;
  const height = shown.length * rowHeight + 6;
  const bars = shown
    .map((b, i) => {
      const y = i * rowHeight + 3;
      const w = Math.max(2, Math.round((b.count / max) * barWidth));
      return `<g><title>${escapeHtml(b.signature)}</title><text x="0" y="${y + 15}">${escapeHtml(b.id)}</text><rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${rowHeight - 6}" fill="#4e79a7"/><text x="${labelWidth + w + 6}" y="${y + 15}">${b.count}</text></g>`;
    })
    .join('');
  return `<svg id="bucket-chart" role="img" aria-label="dumps per bucket" width="${labelWidth + barWidth + 60}" height="${height}" viewBox="0 0 ${labelWidth + barWidth + 60} ${height}" xmlns="http://www.w3.org/2000/svg">${bars}</svg>\n`;
}

function failureSection(summary: AnalyzeSummary): string {
  const rows = [
    ...summary.quarantined.map((f) => ({ ...f, kind: 'quarantined' })),
    ...summary.failures.map((f) => ({ ...f, kind: 'failed' })),
  ];
  if (rows.length === 0) return '';
  return `<h2>Failed and quarantined dumps</h2>
<table id="failures"><thead><tr><th>status</th><th>file</th><th>error</th><th>message</th></tr></thead><tbody>
${rows
  .map(
    (f) =>
      `<tr><td class="bad">${f.kind}</td><td class="mono">${escapeHtml(f.file)}</td><td><code>${escapeHtml(f.code)}</code></td><td>${escapeHtml(f.message)}</td></tr>\n`,
  )
  .join('')}</tbody></table>
`;
}

function dumpSection(r: AnalyzeDumpRecord): string {
  const status = r.ok
    ? '<span class="ok">ok</span>'
    : `<span class="bad">${r.quarantined === true ? 'quarantined' : 'failed'}</span>`;
  const exception = r.exception
    ? `<code>${escapeHtml(r.exception.code)}</code> ${escapeHtml(r.exception.name)}${r.exception.accessType ? ` (${escapeHtml(r.exception.accessType)} ${escapeHtml(r.exception.accessAddress ?? '')})` : ''}${r.exception.address ? ` at <code>${escapeHtml(r.exception.address)}</code>` : ''}`
    : 'none';
  const frames =
    r.frames.length === 0
      ? '<p class="muted">no frames</p>'
      : `<ol class="frames" start="0">${r.frames
          .slice(0, 30)
          .map((f) => `<li><code>${escapeHtml(frameText(f))}</code></li>`)
          .join('')}</ol>`;
  const error = r.error
    ? `<p class="bad"><code>${escapeHtml(r.error.code)}</code> ${escapeHtml(r.error.message)}</p>${r.error.lastOutput && r.error.lastOutput.length > 0 ? `<pre class="mono">${escapeHtml(r.error.lastOutput.join('\n'))}</pre>` : ''}`
    : '';
  const clr = r.clrException?.exceptions[0];
  const raw = r.rawOutputs
    .map((o) => `<a href="${escapeHtml(o.path)}"><code>${escapeHtml(o.command)}</code></a>`)
    .join(' · ');
  const faulting = r.modules.faulting;
  return `<details data-sha256="${escapeHtml(r.sha256)}"><summary>${status} <span class="mono">${escapeHtml(r.file)}</span> — ${exception}${r.bucket ? ` — bucket <code>${escapeHtml(r.bucket.id)}</code>` : ''}</summary>
<table>
<tr><th>sha256</th><td class="mono">${escapeHtml(r.sha256)}</td></tr>
<tr><th>engine</th><td>${escapeHtml(r.engine)} (${r.timings.totalMs} ms${r.attempts > 1 ? `, ${r.attempts} attempts` : ''})</td></tr>
<tr><th>dump</th><td>${escapeHtml(r.dumpKind ?? 'unknown')} · ${r.size} bytes${r.dumpTimestamp ? ` · written ${escapeHtml(r.dumpTimestamp)}` : ''}</td></tr>
<tr><th>process</th><td>${escapeHtml(r.process.name ?? '?')}${r.process.pid === undefined ? '' : ` pid ${r.process.pid}`}</td></tr>
<tr><th>modules</th><td>${r.modules.count} (${r.modules.withDebugId} with debug id)${faulting ? ` · faulting <code>${escapeHtml(faulting.name)}</code> ${escapeHtml(faulting.fileVersion ?? '')}` : ''}</td></tr>
${clr ? `<tr><th>CLR exception</th><td><code>${escapeHtml(clr.type)}</code> ${escapeHtml(clr.message ?? '')}</td></tr>` : ''}
${r.analyze?.failureBucketId ? `<tr><th>!analyze bucket</th><td><code>${escapeHtml(r.analyze.failureBucketId)}</code></td></tr>` : ''}
${r.bucket ? `<tr><th>signature</th><td><code>${escapeHtml(r.bucket.signature)}</code></td></tr>` : ''}
${r.notAvailable.length > 0 ? `<tr><th>not available</th><td>${escapeHtml(r.notAvailable.join(', '))}</td></tr>` : ''}
${raw ? `<tr><th>raw output</th><td>${raw}</td></tr>` : ''}
${r.warnings.length > 0 ? `<tr><th>warnings</th><td>${r.warnings.map(escapeHtml).join('<br>')}</td></tr>` : ''}
</table>
${error}${frames}
</details>
`;
}
