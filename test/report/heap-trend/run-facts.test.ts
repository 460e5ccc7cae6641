// The spacing achieved beside the one asked for, and the stop measured or labelled an upper bound:
// `--interval 1s` with samples that take 6–55 s must not be reported as "every 1 s".
import { expect } from 'chai';
import { formatSummary } from '../../../src/cli/commands/heap-trend-text.js';
import { renderHeapTrendMarkdown } from '../../../src/report/heap-trend/markdown.js';
import { buildHeapTrendReport } from '../../../src/report/heap-trend/report.js';
import { cadenceText, suspensionText } from '../../../src/report/heap-trend/run-facts.js';
import type { HeapTrendSample } from '../../../src/report/heap-trend/types.js';
import { assertValid } from '../../../src/report/schemas.js';

const T0 = Date.parse('2026-12-06T04:00:00.000Z');

/** Samples starting at `starts` (ms), each stopping the target `stopMs`, the tool running `toolMs`. */
function samples(
  starts: number[],
  how: HeapTrendSample['suspendedHow'],
  stopMs: number,
  toolMs: number,
): HeapTrendSample[] {
  return starts.map((at, i) => ({
    time: new Date(T0 + at).toISOString(),
    heaps: [{ id: 'gen2', committedKb: 1000 + i }],
    suspendedMs: stopMs,
    ...(how === undefined ? {} : { suspendedHow: how }),
    ...(how === 'measured' ? { suspendedUpperBoundMs: toolMs } : {}),
    ...(toolMs > 1000 ? { overran: true } : {}),
    source: 'clr-generation' as const,
    index: i,
    elapsedMs: at,
    totalCommittedKb: 1000 + i,
    durationMs: toolMs,
    engine: 'dotnet-dump' as const,
    warnings: [],
  }));
}

function report(data: HeapTrendSample[]) {
  return buildHeapTrendReport(data, {
    target: { pid: 7 },
    engine: 'dotnet-dump',
    source: 'clr-generation',
    intervalMs: 1000,
    startedAt: data[0]?.time ?? '',
    endedAt: data[data.length - 1]?.time ?? '',
    status: 'completed',
  });
}

describe('heap-trend cadence and stop', () => {
  it('reports the achieved spacing and the overruns beside the interval asked for', () => {
    const r = report(samples([0, 6000, 61_000, 68_000], 'measured', 740, 5000));
    assertValid('heapTrendReport', r);
    expect(r.intervalMs).to.equal(1000);
    expect(r.cadence).to.deep.equal({
      askedMs: 1000,
      medianMs: 7000,
      minMs: 6000,
      maxMs: 55_000,
      overruns: 4,
    });
    expect(cadenceText(r)).to.equal(
      '4 samples; asked every 1 s, achieved every 7 s (median; 6 s to 55 s); 4 samples took longer than the interval',
    );
    const md = renderHeapTrendMarkdown(
      r,
      samples([0, 6000, 61_000, 68_000], 'measured', 740, 5000),
    );
    expect(md).to.include('asked every 1 s, achieved every 7 s');
    expect(md).to.not.include('samples every 1 s');
    expect(md).to.include(
      '| 1 | 2026-12-06T04:00:06.000Z | 6 s | 740 ms (measured; the tool ran 5 s) | 5 s | took longer than the interval |',
    );
  });

  it('says a measured stop is measured, with the tool time as its upper bound', () => {
    const r = report(samples([0, 1000, 2000], 'measured', 740, 900));
    expect(r.suspension).to.include({ how: 'measured', totalMs: 2220, upperBoundTotalMs: 2700 });
    expect(suspensionText(r)).to.equal(
      'Target stopped 2.22 s in all (max 740 ms per sample), measured from its thread states; the dump tool ran 2.7 s in all (an upper bound).',
    );
  });

  it('labels the debugger timing an upper bound, and a view that never stops the target', () => {
    expect(suspensionText(report(samples([0, 1000], 'upper-bound', 688, 700)))).to.match(
      /^Target suspended at most 1.38 s in all \(max 688 ms per sample\): an upper bound/,
    );
    expect(suspensionText(report(samples([0, 1000], 'never', 0, 30)))).to.equal(
      'The target was never suspended (this view reads it from outside).',
    );
  });
});

describe('heap-trend: a sample marked unused', () => {
  it('is left out of every series and said in SOS’s words in report.json, the text and report.md', () => {
    const data = samples([0, 1000, 2000, 3000], 'measured', 700, 900);
    const refused =
      'SOS: The GC heap is not in a valid state for traversal.  (Use -ignoreGCState to override.) (taken twice, mid-GC both times)';
    const bad = data[2];
    if (bad !== undefined) {
      bad.unused = refused;
      bad.heaps = [];
    }
    const r = report(data);
    assertValid('heapTrendReport', r);
    expect(r.sampleCount).to.equal(4);
    expect(r.series[0]?.samples).to.equal(3);
    expect(r.warnings).to.include(`sample 2 not used: ${refused}`);
    expect(formatSummary(r, { report: 'r.json', html: 'r.html' })).to.include(
      `sample 2 not used: ${refused}`,
    );
    expect(renderHeapTrendMarkdown(r, data)).to.include(`not used: ${refused}`);
  });
});
