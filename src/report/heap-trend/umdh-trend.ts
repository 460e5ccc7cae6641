// umdh across N snapshots, not 2 (umdh compares exactly two logs:
// https://learn.microsoft.com/en-us/windows-hardware/drivers/debugger/umdh). umdh itself compares two
// logs at a time; here every allocation stack gets its bytes and allocation counts in every
// snapshot, a growth slope, and a consistency figure (share of intervals in which it grew), so a
// stack that grows in 19 of 19 intervals stands apart from one that jumped once.
//
// Built incrementally, entry by entry, so 20 snapshots × 50,000 stacks never hold more than one
// number per stack per snapshot and one copy of each stack's frames. Pure: no I/O.
import { InternalError } from '../../errors.js';
import type { UmdhDiffEntry, UmdhLogEntry } from '../../parsers/records.js';
import { fitLine, growthShare, round } from './regression.js';

/** How stacks are matched across snapshots. */
export type UmdhStackKey =
  /** The BackTrace id: stable within one process lifetime (the trace database index). */
  | 'backtrace'
  /** The frames text: matches the same stack across processes (ids differ after a restart). */
  | 'frames';

export interface UmdhSnapshotInfo {
  file: string;
  kind: 'log' | 'comparison';
  /** When the snapshot was taken (ISO 8601), when known. */
  time?: string;
  entries: number;
  totalBytes: number;
  warnings: string[];
}

export interface UmdhStackTrend {
  /** The BackTrace id (the last one seen, when stacks are keyed by frames). */
  backtrace: string;
  /** Every BackTrace id this stack had (only when keyed by frames and they differ). */
  backtraces?: string[];
  frames: string[];
  /** The first frame outside the heap allocator and C runtime: where the leak is written. */
  site: string | null;
  /** Outstanding bytes per snapshot (0 where the stack had none). */
  bytes: number[];
  /** Outstanding allocations per snapshot; null where the snapshot did not say. */
  allocs: (number | null)[];
  firstBytes: number;
  lastBytes: number;
  growthBytes: number;
  allocsGrowth: number | null;
  slopeBytesPerSnapshot: number;
  /** Only when every snapshot has a time. */
  slopeBytesPerHour?: number;
  r2: number;
  /** Share (0..1) of intervals between consecutive snapshots in which the bytes grew. */
  growthShare: number;
  suspect: boolean;
  rank: number;
}

export interface UmdhTrendRule {
  minSnapshots: number;
  minGrowthShare: number;
  minR2: number;
  minGrowthBytes: number;
}

export const DEFAULT_UMDH_RULE: UmdhTrendRule = {
  minSnapshots: 3,
  minGrowthShare: 0.7,
  minR2: 0.8,
  minGrowthBytes: 64 * 1024,
};

export interface UmdhTrend {
  schemaVersion: 1;
  key: UmdhStackKey;
  snapshots: UmdhSnapshotInfo[];
  /** The top stacks, most growing first (all of them when fewer than `top`). */
  stacks: UmdhStackTrend[];
  ranking: string[];
  rule: string;
  ruleParameters: UmdhTrendRule;
  totalStacks: number;
  growingStacks: number;
  suspectStacks: number;
  warnings: string[];
}

// Frames that belong to the allocator or the runtime, never to the code that leaks:
//   ntdll!RtlAllocateHeap+00000274, ntdll!RtlLogStackBackTrace+00000007,
//   MyApp!_heap_alloc_dbg+0x000001A2, MyApp!operator new+0x0000000E, MSVCR90D!_read+00000219
const ALLOCATOR_FRAME_RE =
  /^(?:ntdll!|kernelbase!(?:Local|Global|Heap)|kernel32!(?:Local|Global|Heap)|[^!]*!(?:_?heap_alloc|_nh_malloc|malloc|calloc|realloc|_malloc|_calloc|operator new|_?RtlpAllocate|RtlDebugAllocateHeap|RtlAllocateHeap|RtlLogStackBackTrace))/i;

export function allocationSite(frames: readonly string[]): string | null {
  for (const frame of frames) {
    if (!ALLOCATOR_FRAME_RE.test(frame.trim())) return frame.trim();
  }
  return null;
}

interface StackAccumulator {
  key: string;
  backtrace: string;
  backtraces: Set<string> | undefined;
  frames: string[];
  bytes: Float64Array;
  allocs: Float64Array;
}

export interface UmdhTrendBuilderOptions {
  /** Number of points: snapshot logs, or comparison reports + 1. */
  points: number;
  key?: UmdhStackKey;
}

/** Collects snapshots one entry at a time; `finish()` computes the trend. */
export class UmdhTrendBuilder {
  readonly points: number;
  readonly key: UmdhStackKey;
  private readonly stacks = new Map<string, StackAccumulator>();
  private readonly snapshots: UmdhSnapshotInfo[] = [];
  private readonly warnings: string[] = [];
  private current: UmdhSnapshotInfo | undefined;
  /** Comparison reports list only stacks that changed: unknown points are filled at the end. */
  private comparisons = false;
  private currentPoint = -1;

  constructor(options: UmdhTrendBuilderOptions) {
    if (!Number.isInteger(options.points) || options.points < 2) {
      throw new RangeError(`a trend needs at least 2 points, got ${options.points}`);
    }
    this.points = options.points;
    this.key = options.key ?? 'backtrace';
  }

  private stack(backtrace: string, frames: readonly string[]): StackAccumulator {
    const key = this.key === 'frames' && frames.length > 0 ? frames.join('\n') : backtrace;
    let acc = this.stacks.get(key);
    if (acc === undefined) {
      acc = {
        key,
        backtrace,
        backtraces: undefined,
        frames: [...frames],
        bytes: new Float64Array(this.points).fill(this.comparisons ? Number.NaN : 0),
        allocs: new Float64Array(this.points).fill(Number.NaN),
      };
      this.stacks.set(key, acc);
    } else if (acc.backtrace !== backtrace) {
      acc.backtraces ??= new Set([acc.backtrace]);
      acc.backtraces.add(backtrace);
      acc.backtrace = backtrace;
    }
    if (acc.frames.length === 0 && frames.length > 0) acc.frames = [...frames];
    return acc;
  }

  /** Starts snapshot log number `point` (0-based, in time order). */
  beginLog(file: string, point: number, time?: string): void {
    this.begin(file, 'log', point, time);
  }

  /**
   * Starts comparison report number `report`: it compares point `report` (old) with point
   * `report + 1` (new), so k chained reports give k + 1 points.
   */
  beginComparison(file: string, report: number, time?: string): void {
    this.begin(file, 'comparison', report + 1, time);
  }

  private begin(file: string, kind: 'log' | 'comparison', point: number, time?: string): void {
    if (this.current !== undefined) this.end();
    if (kind === 'comparison') this.comparisons = true;
    if (!Number.isInteger(point) || point < 0 || point >= this.points) {
      throw new RangeError(`point ${point} is outside 0..${this.points - 1}`);
    }
    this.currentPoint = point;
    this.current = {
      file,
      kind,
      ...(time === undefined ? {} : { time }),
      entries: 0,
      totalBytes: 0,
      warnings: [],
    };
  }

  addLogEntry(entry: UmdhLogEntry): void {
    const snapshot = this.requireSnapshot();
    const acc = this.stack(entry.backtrace, entry.frames);
    const point = this.currentPoint;
    acc.bytes[point] = (acc.bytes[point] ?? 0) + entry.bytes;
    if (entry.allocs !== undefined) {
      const previous = acc.allocs[point] ?? Number.NaN;
      acc.allocs[point] = (Number.isNaN(previous) ? 0 : previous) + entry.allocs;
    }
    snapshot.entries++;
    snapshot.totalBytes += entry.bytes;
  }

  addComparisonEntry(entry: UmdhDiffEntry): void {
    const snapshot = this.requireSnapshot();
    const acc = this.stack(entry.backtrace, entry.frames);
    const point = this.currentPoint;
    const oldPoint = point - 1;
    const known = acc.bytes[oldPoint] ?? Number.NaN;
    // A chain of reports must agree: report k's OLD is report k-1's NEW.
    if (!Number.isNaN(known) && known !== entry.oldBytes && snapshot.warnings.length < 20) {
      snapshot.warnings.push(
        `${entry.backtrace}: old bytes ${entry.oldBytes} differ from the previous report's new bytes ${known}; are the reports in order?`,
      );
    }
    acc.bytes[oldPoint] = entry.oldBytes;
    acc.bytes[point] = entry.newBytes;
    snapshot.entries++;
    snapshot.totalBytes += entry.newBytes;
  }

  /** A warning about the current snapshot (e.g. the parser's own warnings, capped). */
  warn(text: string): void {
    if (this.current !== undefined && this.current.warnings.length < 50)
      this.current.warnings.push(text);
    else if (this.current === undefined) this.warnings.push(text);
  }

  private requireSnapshot(): UmdhSnapshotInfo {
    if (this.current === undefined) throw new InternalError('beginLog/beginComparison first');
    return this.current;
  }

  private end(): void {
    if (this.current !== undefined) this.snapshots.push(this.current);
    this.current = undefined;
  }

  finish(options: { rule?: Partial<UmdhTrendRule>; top?: number } = {}): UmdhTrend {
    this.end();
    const rule: UmdhTrendRule = { ...DEFAULT_UMDH_RULE, ...options.rule };
    const top = options.top ?? 50;
    const n = this.points;
    const xs = Array.from({ length: n }, (_, i) => i);
    const times = this.pointTimes();
    const hours = times?.map((t) => (t - (times[0] ?? 0)) / 3_600_000);
    const all: UmdhStackTrend[] = [];
    let growing = 0;
    let suspects = 0;
    for (const acc of this.stacks.values()) {
      if (this.comparisons) fillUnchanged(acc.bytes);
      const fit = fitLine(xs, acc.bytes, n);
      const share = growthShare(acc.bytes, n);
      const firstBytes = acc.bytes[0] ?? 0;
      const lastBytes = acc.bytes[n - 1] ?? 0;
      const growthBytes = lastBytes - firstBytes;
      if (growthBytes > 0) growing++;
      const suspect =
        n >= rule.minSnapshots &&
        growthBytes >= rule.minGrowthBytes &&
        share >= rule.minGrowthShare &&
        fit.r2 >= rule.minR2;
      if (suspect) suspects++;
      const allocs = Array.from(acc.allocs, (v) => (Number.isNaN(v) ? null : v));
      const firstAllocs = allocs[0];
      const lastAllocs = allocs[n - 1];
      const trend: UmdhStackTrend = {
        backtrace: acc.backtrace,
        ...(acc.backtraces === undefined ? {} : { backtraces: [...acc.backtraces] }),
        frames: acc.frames,
        site: allocationSite(acc.frames),
        bytes: Array.from(acc.bytes),
        allocs,
        firstBytes,
        lastBytes,
        growthBytes,
        allocsGrowth: firstAllocs == null || lastAllocs == null ? null : lastAllocs - firstAllocs,
        slopeBytesPerSnapshot: round(fit.slope),
        r2: round(fit.r2, 4),
        growthShare: round(share, 4),
        suspect,
        rank: 0,
      };
      if (hours !== undefined) trend.slopeBytesPerHour = round(fitLine(hours, acc.bytes, n).slope);
      all.push(trend);
    }
    all.sort(
      (a, b) =>
        Number(b.suspect) - Number(a.suspect) ||
        b.growthBytes - a.growthBytes ||
        b.growthShare - a.growthShare ||
        (a.backtrace < b.backtrace ? -1 : a.backtrace > b.backtrace ? 1 : 0),
    );
    const shown = all.slice(0, top);
    shown.forEach((s, i) => {
      s.rank = i + 1;
    });
    return {
      schemaVersion: 1,
      key: this.key,
      snapshots: this.snapshots,
      stacks: shown,
      ranking: shown.map((s) => s.backtrace),
      rule: umdhRuleText(rule),
      ruleParameters: rule,
      totalStacks: all.length,
      growingStacks: growing,
      suspectStacks: suspects,
      warnings: this.warnings,
    };
  }

  /** Epoch ms per point when every point has a time, else undefined. */
  private pointTimes(): number[] | undefined {
    const times: (number | undefined)[] = new Array<number | undefined>(this.points);
    for (const snapshot of this.snapshots) {
      if (snapshot.time === undefined) return undefined;
      const index = this.snapshots.indexOf(snapshot) + (snapshot.kind === 'comparison' ? 1 : 0);
      times[index] = Date.parse(snapshot.time);
    }
    if (times.some((t) => t === undefined || Number.isNaN(t))) return undefined;
    return times as number[];
  }
}

/**
 * A comparison report lists only the stacks whose bytes changed, so a point a stack is missing
 * from held the same bytes as the point before it (forward fill); points before its first
 * mention held what that first report calls OLD (back fill).
 */
function fillUnchanged(bytes: Float64Array): void {
  let first = -1;
  for (let i = 0; i < bytes.length; i++) {
    if (!Number.isNaN(bytes[i] ?? Number.NaN)) {
      first = i;
      break;
    }
  }
  if (first < 0) {
    bytes.fill(0);
    return;
  }
  for (let i = 0; i < first; i++) bytes[i] = bytes[first] ?? 0;
  for (let i = first + 1; i < bytes.length; i++) {
    if (Number.isNaN(bytes[i] ?? Number.NaN)) bytes[i] = bytes[i - 1] ?? 0;
  }
}

export function umdhRuleText(rule: UmdhTrendRule): string {
  return (
    `An allocation stack is a leak suspect when, across at least ${rule.minSnapshots} snapshots, ` +
    `its outstanding bytes grew in at least ${Math.round(rule.minGrowthShare * 100)} % of the ` +
    `intervals AND a straight line explains the growth (R² ≥ ${rule.minR2}) AND it grew by at ` +
    `least ${rule.minGrowthBytes} bytes from the first snapshot to the last.`
  );
}
