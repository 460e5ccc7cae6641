// One verdict for the whole report: a run whose per-GC-generation series flags nothing (gen2 grows
// in steps as the GC promotes in bursts, failing "grew in 70 % of intervals") while its per-type
// series flags the growing types must say "Leak suspected" with the type first, in report.json, the
// CLI text, report.md, report.html and the exit code alike. Before, the text opened with
// "No leak suspects." and the exit code was 0.
import { expect } from 'chai';
import { exitCodeOfReport, formatSummary } from '../../../src/cli/commands/heap-trend-text.js';
import { ExitCode } from '../../../src/cli/exit-codes.js';
import { renderHeapTrendHtml } from '../../../src/report/heap-trend/html.js';
import { renderHeapTrendMarkdown } from '../../../src/report/heap-trend/markdown.js';
import { buildHeapTrendReport } from '../../../src/report/heap-trend/report.js';
import type { HeapTrendSample } from '../../../src/report/heap-trend/types.js';
import { assertValid } from '../../../src/report/schemas.js';

const T0 = Date.parse('2026-12-06T04:00:00.000Z');

/**
 * `n` samples 10 s apart. gen2: 4 KB, then a step every third sample (one interval in three grew);
 * gen0 breathes; when `leak`, Byte[] and SessionState grow steadily, a constant List stays put.
 */
function samples(n: number, leak: boolean): HeapTrendSample[] {
  return Array.from({ length: n }, (_, i) => {
    const step = Math.floor(i / 3);
    const heaps = [
      { id: 'gen0', committedKb: i % 2 === 0 ? 2048 : 512 },
      { id: 'gen2', committedKb: leak ? 4 + step * 40_000 : 4 },
    ];
    const grow = leak ? i : 0;
    const clrTypes = [
      { id: 'System.Byte[]', committedKb: 1000 + 16 * 1024 * grow, count: 10 + 1024 * grow },
      {
        id: 'CdbHarness.Targets.SessionState',
        committedKb: 10 + 48 * grow,
        count: 10 + 1024 * grow,
      },
      { id: 'System.Collections.Generic.List<System.String>', committedKb: 4000, count: 1 },
    ];
    return {
      time: new Date(T0 + i * 10_000).toISOString(),
      heaps,
      clrTypes,
      suspendedMs: 700,
      source: 'clr-generation' as const,
      index: i,
      elapsedMs: i * 10_000,
      totalCommittedKb: heaps.reduce((s, h) => s + h.committedKb, 0),
      durationMs: 5000,
      engine: 'dotnet-dump' as const,
      warnings: [],
    };
  });
}

function report(n: number, leak: boolean) {
  const data = samples(n, leak);
  return buildHeapTrendReport(data, {
    target: { pid: 4242, name: 'Sessions' },
    engine: 'dotnet-dump',
    source: 'clr-generation',
    intervalMs: 10_000,
    startedAt: data[0]?.time ?? '',
    endedAt: data[n - 1]?.time ?? '',
    status: 'completed',
  });
}

const FILES = { report: 'out/report.json', html: 'out/report.html' };

describe('heap-trend verdict', () => {
  it('a flagged type leads every rendering and sets the exit code, though no generation is flagged', () => {
    const r = report(9, true);
    assertValid('heapTrendReport', r);
    // The per-generation rule fails on gen2's steps: the main series flags nothing.
    expect(r.series.filter((s) => s.suspect)).to.deep.equal([]);
    expect(r.verdict?.kind).to.equal('leak');
    expect(r.verdict?.suspects.map((s) => s.id)).to.deep.equal([
      'System.Byte[]',
      'CdbHarness.Targets.SessionState',
    ]);
    const headline = r.verdict?.headline ?? '';
    expect(headline).to.match(
      /^Leak suspected: System\.Byte\[\] grew 128 MB \(\+96 MB\/min, R² 1, 10 → 8,202 objects\)/,
    );
    expect(headline).to.include('also flagged: CdbHarness.Targets.SessionState');
    const text = formatSummary(r, FILES);
    expect(text.split('\n')[0]).to.equal(headline);
    expect(text).to.not.include('No leak');
    const md = renderHeapTrendMarkdown(r);
    expect(md.split('\n')[2]).to.equal(`**${headline}**`);
    const html = renderHeapTrendHtml(r, samples(9, true));
    const h1 = html.indexOf('<h1>');
    const verdictAt = html.indexOf('<div id="verdict" class="verdict leak">');
    expect(verdictAt).to.be.greaterThan(h1);
    expect(html.indexOf('<table')).to.be.greaterThan(verdictAt);
    expect(html).to.include('Leak suspected: System.Byte[] grew 128 MB');
    expect(exitCodeOfReport(r)).to.equal(ExitCode.LeakSuspected);
  });

  it('says no leak, with what it judged, when nothing is flagged, and exits 0', () => {
    const r = report(9, false);
    expect(r.verdict?.kind).to.equal('no-leak');
    expect(r.verdict?.headline).to.equal(
      'No leak suspected: none of 2 GC generations, 3 .NET types met the rule over 9 samples.',
    );
    expect(formatSummary(r, FILES).split('\n')[0]).to.equal(r.verdict?.headline);
    expect(exitCodeOfReport(r)).to.equal(ExitCode.Ok);
  });

  it('is inconclusive with fewer samples than the rule needs', () => {
    const r = report(2, true);
    expect(r.verdict?.kind).to.equal('inconclusive');
    expect(r.verdict?.headline).to.match(/^Inconclusive: 2 usable sample\(s\)/);
    expect(exitCodeOfReport(r)).to.equal(ExitCode.Ok);
  });

  it('an interrupted run keeps its own exit code whatever the verdict', () => {
    const r = { ...report(9, true), status: 'interrupted' as const };
    expect(exitCodeOfReport(r)).to.equal(ExitCode.Interrupted);
  });
});
