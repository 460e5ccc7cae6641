// The runtime's System.Runtime EventCounters (one line per counter per interval, from the
// diagnostics channel client) folded into one current ClrCounters reading. The counter names,
// units and kinds are the runtime's (dotnet/runtime RuntimeEventSource.cs): gauges
// (`PollingCounter`, counterType `Mean`) report their value, in `MB` = 1,000,000 bytes for
// gc-heap-size, gc-committed and working-set, in bytes for the generation sizes; incrementing
// counters (`IncrementingPollingCounter`, counterType `Sum`) report what was added during the
// interval (alloc-rate bytes, gen-N-gc-count collections, total-pause-time-by-gc ms), so they are
// summed here into totals since the counters started. Pure.
import type { ClrCounters } from '../../report/heap-trend/types.js';

/** One counter line as the channel client gives it (dialects/dotnet-diag protocol.ts). */
export interface CounterLine {
  /** Unix ms when the runtime published it. */
  t: number;
  name: string;
  value: number | null;
  counterType: string;
  intervalSec?: number;
}

const MB = 1_000_000 / 1024;
const B = 1 / 1024;

/** Gauges: counter name → field and factor to KB (or 1 for %). */
const GAUGES: Record<string, [keyof ClrCounters, number]> = {
  'gc-heap-size': ['gcHeapSizeKb', MB],
  'gen-0-size': ['gen0Kb', B],
  'gen-1-size': ['gen1Kb', B],
  'gen-2-size': ['gen2Kb', B],
  'loh-size': ['lohKb', B],
  'poh-size': ['pohKb', B],
  'gc-committed': ['gcCommittedKb', MB],
  'working-set': ['workingSetKb', MB],
  'time-in-gc': ['timeInGcPercent', 1],
};

/** Incrementing counters summed into totals: name → field. */
const TOTALS: Record<string, keyof ClrCounters> = {
  'gen-0-gc-count': 'gen0Collections',
  'gen-1-gc-count': 'gen1Collections',
  'gen-2-gc-count': 'gen2Collections',
  'total-pause-time-by-gc': 'gcPauseTotalMs',
};

/** The counters a reading needs before it is given out: the generation sizes. */
const NEEDED = ['gen-0-size', 'gen-1-size', 'gen-2-size', 'loh-size'];

export class ClrCounterState {
  private readonly values: ClrCounters = {};
  private readonly seen = new Set<string>();
  private lastT = 0;

  /** Folds one counter line in; lines of other counters are ignored. */
  add(line: CounterLine): void {
    if (line.value === null || !Number.isFinite(line.value)) return;
    const gauge = GAUGES[line.name];
    const total = TOTALS[line.name];
    if (gauge !== undefined) {
      const [field, factor] = gauge;
      (this.values as Record<string, number>)[field] = round(line.value * factor);
    } else if (total !== undefined) {
      const record = this.values as Record<string, number>;
      record[total] = round((record[total] ?? 0) + line.value);
    } else if (line.name === 'alloc-rate') {
      const seconds = line.intervalSec !== undefined && line.intervalSec > 0 ? line.intervalSec : 1;
      this.values.allocRateKbPerSec = round((line.value / seconds) * B);
    } else return;
    this.seen.add(line.name);
    if (line.t > this.lastT) this.lastT = line.t;
  }

  /** Whether every generation size has arrived at least once. */
  get ready(): boolean {
    return NEEDED.every((name) => this.seen.has(name));
  }

  /** A copy of the current reading, or undefined before it is ready. */
  reading(): ClrCounters | undefined {
    if (!this.ready) return undefined;
    return { ...this.values, time: new Date(this.lastT).toISOString() };
  }
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
