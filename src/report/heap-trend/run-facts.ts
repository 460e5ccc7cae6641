// What a run cost and how it kept time, in the same words in the CLI text, report.md and
// report.html: the spacing achieved beside the one asked for (`--interval 1s` gave 6–55 s between
// dotnet-dump samples, and the report said "every 1 s"), the target's stop measured or labelled an
// upper bound, and a table of the samples with each one's stop, spacing and what went wrong. Pure.
import { formatMs } from './format.js';
import type { HeapTrendReport, HeapTrendSample } from './types.js';

/** Rows of the samples table before it is cut (the first and the last ones are kept). */
const SAMPLE_ROWS = 60;

/** `8 samples; asked every 1 s, achieved every 6.2 s (median; 5.9 s to 55 s); 7 overran the interval`. */
export function cadenceText(
  report: Pick<HeapTrendReport, 'sampleCount' | 'intervalMs' | 'cadence' | 'inputs'>,
): string {
  const count = `${report.sampleCount} sample${report.sampleCount === 1 ? '' : 's'}`;
  const c = report.cadence;
  if (c === undefined) {
    return report.inputs === undefined
      ? `${count} every ${formatMs(report.intervalMs)}`
      : `${count} from dumps, a median ${formatMs(report.intervalMs)} apart`;
  }
  if (c.medianMs === undefined) return `${count}; asked every ${formatMs(c.askedMs)}`;
  const range =
    c.minMs === c.maxMs ? '' : ` (median; ${formatMs(c.minMs ?? 0)} to ${formatMs(c.maxMs ?? 0)})`;
  const overruns =
    c.overruns === 0
      ? ''
      : `; ${c.overruns} sample${c.overruns === 1 ? '' : 's'} took longer than the interval`;
  return `${count}; asked every ${formatMs(c.askedMs)}, achieved every ${formatMs(c.medianMs)}${range}${overruns}`;
}

/** The target's stop over the run, measured or labelled an upper bound. */
export function suspensionText(
  report: Pick<HeapTrendReport, 'suspension' | 'sampleCount' | 'inputs'>,
): string {
  const s = report.suspension;
  const totals = `${formatMs(s.totalMs)} in all (max ${formatMs(s.maxMs)} per sample)`;
  switch (s.how) {
    case 'measured':
      return (
        `Target stopped ${totals}, measured from its thread states` +
        (s.upperBoundTotalMs === undefined
          ? '.'
          : `; the dump tool ran ${formatMs(s.upperBoundTotalMs)} in all (an upper bound).`)
      );
    case 'mixed':
      return `Target stopped ${totals}: measured for some samples, an upper bound for the others (see the samples).`;
    case 'upper-bound':
      return `Target suspended at most ${totals}: an upper bound (the debugger's run from start to exit holds the stop and its own start-up).`;
    case 'never':
      return 'The target was never suspended (this view reads it from outside).';
    default:
      return report.inputs === undefined
        ? `Target suspended ${totals}.`
        : 'Target stop: not known (the dumps were written by another tool).';
  }
}

/** One sample's stop: `740 ms (measured; the tool ran 1.9 s)`, `688 ms (upper bound)`. */
export function sampleStopText(sample: HeapTrendSample): string {
  switch (sample.suspendedHow) {
    case 'measured':
      return `${formatMs(sample.suspendedMs)} (measured${sample.suspendedUpperBoundMs === undefined ? '' : `; the tool ran ${formatMs(sample.suspendedUpperBoundMs)}`})`;
    case 'upper-bound':
      return `at most ${formatMs(sample.suspendedMs)} (upper bound)`;
    case 'never':
      return 'none';
    default:
      return formatMs(sample.suspendedMs);
  }
}

export interface SampleRow {
  index: number;
  time: string;
  /** Start to start from the previous sample; empty for the first. */
  spacing: string;
  stop: string;
  took: string;
  notes: string;
}

/** The samples table's rows: at most SAMPLE_ROWS, the first half and the last half kept. */
export function sampleRows(samples: readonly HeapTrendSample[]): {
  rows: SampleRow[];
  omitted: number;
} {
  const all = samples.map((sample, i): SampleRow => {
    const previous = samples[i - 1];
    const notes = [
      ...(sample.unused === undefined ? [] : [`not used: ${sample.unused}`]),
      ...(sample.overran === true ? ['took longer than the interval'] : []),
    ];
    return {
      index: sample.index,
      time: sample.time,
      spacing: previous === undefined ? '' : formatMs(sample.elapsedMs - previous.elapsedMs),
      stop: sampleStopText(sample),
      took: formatMs(sample.durationMs),
      notes: notes.join('; '),
    };
  });
  if (all.length <= SAMPLE_ROWS) return { rows: all, omitted: 0 };
  const half = SAMPLE_ROWS / 2;
  return { rows: [...all.slice(0, half), ...all.slice(-half)], omitted: all.length - SAMPLE_ROWS };
}
