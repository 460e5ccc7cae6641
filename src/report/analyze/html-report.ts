// report.html: one self-contained page (inline CSS, SVG and one inline script; no network) with
// the bucket table and chart, failures, and the dump table. Buckets link to their dumps (the dump
// table filtered to the bucket) and every dump to its bucket; the dump table has a search box,
// sortable columns and per-dump details (exception, stack, modules with versions, registers,
// .NET exception, error). Every text from a dump or a debugger is escaped: in the HTML written
// here by escapeHtml, in the dump table by the page script, whose data sits in JSON blocks that
// cannot close their <script> element (report-data.ts). Records are streamed from records.ndjson
// into the file, so the page for 10,000 dumps never sits in memory, only its string table.
import type { ShowPath } from './shown-paths.js';
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { AnalyzeDumpRecord, AnalyzeSummary, SummaryBucket } from './analyze-record.js';
import { escapeHtml } from '../html-escape.js';
import { dumpRow, ReportRows, scriptJson, StringTable } from './report-data.js';
import { REPORT_SCRIPT, REPORT_SCRIPT_HASH } from './report-script.js';

export const REPORT_FILE = 'report.html';

const CSS = `
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px;color:#1d2330;background:#fff}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.muted{color:#667085}.counts span{display:inline-block;margin-right:18px}
table{border-collapse:collapse;width:100%;margin:6px 0}th,td{border-bottom:1px solid #e4e7ec;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f5f7fa;font-weight:600}td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
table.sortable th,#dump-table th[data-sort]{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
code,.mono{font-family:ui-monospace,SFMono-Regular,Consolas,monospace;font-size:12.5px;word-break:break-all}
pre{margin:4px 0;white-space:pre-wrap}details summary{cursor:pointer}
.bad,.st1 td:first-child,.st2 td:first-child{color:#b42318}.ok,.st0 td:first-child{color:#067647}
ol.frames{margin:4px 0;padding-left:28px}tr.detail>td{background:#fafbfc}table.kv th{width:150px;background:none}
button.x{border:0;background:none;cursor:pointer;font-size:13px;padding:0 4px}
#dump-search{width:min(520px,100%);padding:6px 8px;font:inherit;margin-right:12px}
.sig{word-break:normal}.sig .tok,.nowrap{white-space:nowrap;word-break:normal}
.regs{display:grid;grid-template-columns:repeat(3,max-content);column-gap:2ch;margin:4px 0}
tr:target{outline:2px solid #4e79a7}
svg text{font:12px ui-monospace,monospace;fill:#1d2330}svg a:hover rect{fill:#2e5a87}
`;

function writer(stream: WriteStream) {
  return async (chunk: string) => {
    if (!stream.write(chunk)) await once(stream, 'drain');
  };
}

/**
 * Writes the report. `records` is iterated once (pass readRecords(…) to stream from disk), or is
 * the rows a run built as it wrote its records (report-data.ts ReportRows).
 */
export async function writeHtmlReport(
  path: string,
  summary: AnalyzeSummary,
  records: AsyncIterable<AnalyzeDumpRecord> | ReportRows,
  /** How records' paths are shown (`--relative-paths`; ReportRows were made with it already). */
  show?: ShowPath,
): Promise<void> {
  // `wx`: the caller's temp name is new; a link planted there is refused, never followed.
  const stream = createWriteStream(path, { encoding: 'utf8', flags: 'wx' });
  const write = writer(stream);
  const done = new Promise<void>((resolve, reject) => {
    stream.on('finish', resolve);
    stream.on('error', reject);
  });
  await write(head(summary));
  await write(bucketSection(summary));
  await write(failureSection(summary));
  await write(dumpSection(summary));
  const bucketIndex = new Map(summary.buckets.map((b, i) => [b.id, i]));
  await write('<script type="application/json" id="cdbh-dumps">[');
  let strings: StringTable;
  if (records instanceof ReportRows) {
    strings = records.strings;
    // Rows in chunks of about 64 KB: one write (and drain check) per row costs more than the row.
    let chunk = '';
    let first = true;
    for (const row of records.rowsJson(bucketIndex)) {
      chunk += `${first ? '' : ','}\n${row}`;
      first = false;
      if (chunk.length >= 64 * 1024) {
        await write(chunk);
        chunk = '';
      }
    }
    if (chunk !== '') await write(chunk);
  } else {
    strings = new StringTable();
    let first = true;
    for await (const record of records) {
      await write(
        `${first ? '' : ','}\n${scriptJson(dumpRow(record, strings, bucketIndex, show))}`,
      );
      first = false;
    }
  }
  await write(']</script>\n');
  await write(
    `<script type="application/json" id="cdbh-buckets">${scriptJson(
      summary.buckets.map((b) => [b.id, b.signature, b.count]),
    )}</script>\n`,
  );
  await write(
    `<script type="application/json" id="cdbh-strings">${scriptJson(strings.strings)}</script>\n`,
  );
  await write(`<script>${REPORT_SCRIPT}</script>\n</body>\n</html>\n`);
  stream.end();
  await done;
}

function head(summary: AnalyzeSummary): string {
  const top = summary.topException;
  const tool = summary.tool ? `${summary.tool.name} ${summary.tool.version}` : 'cdb-harness';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${REPORT_SCRIPT_HASH}'; img-src data:">
<title>cdb-harness analyze: ${summary.dumps} dumps, ${summary.buckets.length} buckets</title>
<style>${CSS}</style>
</head>
<body>
<h1>cdb-harness analyze</h1>
<div class="muted">generated ${escapeHtml(summary.generatedAt)} by ${escapeHtml(tool)} · engine ${escapeHtml(summary.engines.join(', ') || 'none')} · signature algorithm <code>${escapeHtml(summary.algorithm)}</code>${summary.interrupted === true ? ' · <span class="bad">interrupted: partial results</span>' : ''}</div>
<p class="counts"><span id="count-dumps"><b>${summary.dumps}</b> dumps</span><span id="count-ok" class="ok"><b>${summary.ok}</b> ok</span><span id="count-failed" class="${summary.failed > 0 ? 'bad' : ''}"><b>${summary.failed}</b> failed</span><span id="count-quarantined"><b>${summary.quarantined.length}</b> quarantined</span><span><b>${summary.buckets.length}</b> buckets</span>${top ? `<span>top exception <code>${escapeHtml(top.code)}</code> ${escapeHtml(top.name)} (${top.count})</span>` : ''}</p>
`;
}

function bucketSection(summary: AnalyzeSummary): string {
  if (summary.buckets.length === 0) return '<h2>Buckets</h2>\n<p class="muted">No buckets.</p>\n';
  const rows = summary.buckets.map(bucketRow).join('');
  return `<h2>Buckets</h2>
${bucketChart(summary.buckets)}
<table id="buckets" class="sortable">
<thead><tr><th class="num">dumps</th><th>bucket</th><th>signature</th><th>exception</th><th>first seen</th><th>last seen</th><th>representative</th><th>faulting module versions</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
`;
}

/** `#bucket=ID` and `#file=PATH` are followed by the page script (report-script.ts). */
function hashLink(kind: 'bucket' | 'file', value: string, html: string, title?: string): string {
  const titled = title === undefined ? '' : ` title="${escapeHtml(title)}"`;
  return `<a href="#${kind}=${escapeHtml(encodeURIComponent(value))}"${titled}>${html}</a>`;
}

function bucketRow(b: SummaryBucket): string {
  const versions = b.moduleVersions
    .map(
      (v) =>
        `${escapeHtml(v.module)} ${v.version === null ? '<span class="muted">(no version)</span>' : escapeHtml(v.version)} ×${v.count}`,
    )
    .join('<br>');
  const representative = hashLink(
    'file',
    b.representative,
    escapeHtml(baseName(b.representative)),
    b.representative,
  );
  return `<tr id="b-${escapeHtml(b.id)}" data-bucket-id="${escapeHtml(b.id)}"><td class="num">${hashLink('bucket', b.id, String(b.count), `list the ${b.count} dump(s) of this bucket`)}</td><td><code class="nowrap">${escapeHtml(b.id)}</code></td><td>${signatureHtml(b.signature)}</td><td>${b.exception ? `<code class="nowrap">${escapeHtml(b.exception.code)}</code> ${escapeHtml(b.exception.name)}` : '—'}</td><td class="nowrap">${escapeHtml(b.firstSeen ?? '')}</td><td class="nowrap">${escapeHtml(b.lastSeen ?? '')}</td><td class="mono">${representative}</td><td>${versions}</td></tr>\n`;
}

/** A signature that wraps only at its ` | ` separators (the page script's sig() does the same). */
function signatureHtml(signature: string): string {
  const tokens = signature.split(' | ').map((t) => `<span class="tok">${escapeHtml(t)}</span>`);
  return `<code class="sig">${tokens.join(' | ')}</code>`;
}

const CHART_LABEL_CHARS = 56;

/** Horizontal bars, one per bucket (at most 20), labelled with the signature, as inline SVG. */
function bucketChart(buckets: readonly SummaryBucket[]): string {
  const shown = buckets.slice(0, 20);
  const max = shown.reduce((most, b) => Math.max(most, b.count), 1);
  const rowHeight = 22;
  const labelWidth = Math.ceil(CHART_LABEL_CHARS * 7.3) + 10;
  const barWidth = 360;
  const width = labelWidth + barWidth + 60;
  const height = shown.length * rowHeight + 6;
  const bars = shown
    .map((b, i) => {
      const y = i * rowHeight + 3;
      const w = Math.max(2, Math.round((b.count / max) * barWidth));
      const label =
        b.signature.length > CHART_LABEL_CHARS
          ? `${b.signature.slice(0, CHART_LABEL_CHARS - 1)}…`
          : b.signature;
      return `<g><a href="#b-${escapeHtml(b.id)}"><title>${escapeHtml(b.signature)} (bucket ${escapeHtml(b.id)})</title><text x="0" y="${y + 15}">${escapeHtml(label)}</text><rect x="${labelWidth}" y="${y + 3}" width="${w}" height="${rowHeight - 6}" fill="#4e79a7"/></a><text x="${labelWidth + w + 6}" y="${y + 15}">${b.count}</text></g>`;
    })
    .join('');
  const more =
    buckets.length > shown.length
      ? `<p class="muted">The chart shows the ${shown.length} largest of ${buckets.length} buckets.</p>\n`
      : '';
  return `<svg id="bucket-chart" role="img" aria-label="dumps per bucket, by signature" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" xmlns="http://www.w3.org/2000/svg">${bars}</svg>\n${more}`;
}

function failureSection(summary: AnalyzeSummary): string {
  const rows = [
    ...summary.quarantined.map((f) => ({ ...f, kind: 'quarantined' })),
    ...summary.failures.map((f) => ({ ...f, kind: 'failed' })),
  ];
  if (rows.length === 0) return '';
  return `<h2>Failed and quarantined dumps</h2>
<table id="failures" class="sortable"><thead><tr><th>status</th><th>file</th><th>error</th><th>message</th></tr></thead><tbody>
${rows
  .map(
    (f) =>
      `<tr><td class="bad">${f.kind}</td><td class="mono">${hashLink('file', f.file, escapeHtml(f.file))}</td><td><code class="nowrap">${escapeHtml(f.code)}</code></td><td>${escapeHtml(f.message)}</td></tr>\n`,
  )
  .join('')}</tbody></table>
`;
}

function dumpSection(summary: AnalyzeSummary): string {
  const th = (key: string, text: string, num = false) =>
    `<th data-sort="${key}"${num ? ' class="num"' : ''} aria-sort="none">${text}</th>`;
  return `<h2 id="dumps">Dumps</h2>
<p><input id="dump-search" type="search" placeholder="search file, exception, bucket, signature, module, error…" aria-label="search dumps"><span id="dump-count" class="muted">${summary.dumps} dumps</span></p>
<noscript><p class="bad">The dump table is drawn by this page's inline script (no network). With scripts off, the buckets and failures above still show; every dump's record is in records.ndjson.</p></noscript>
<table id="dump-table">
<thead><tr>${th('status', 'status')}${th('file', 'file')}${th('exception', 'exception')}${th('bucket', 'bucket')}${th('process', 'process')}${th('time', 'written')}${th('size', 'size', true)}</tr></thead>
<tbody></tbody>
</table>
<button id="dump-more" hidden></button>
`;
}

function baseName(path: string): string {
  return /[^\\/]*$/.exec(path)?.[0] ?? path;
}
