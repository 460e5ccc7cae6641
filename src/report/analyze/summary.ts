// Folds analyze records into the summary (buckets, counts, failures) one record at a time, so a
// summary of 100,000 dumps costs the bucket table, not the records. Everything in the result is
// ordered deterministically (buckets by count then id, files by path), whatever order parallel
// workers finished in: two runs over the same dumps give the same summary.json but for
// `generatedAt`.
import { packageInfo } from '../../package-info.js';
import type {
  AnalyzeDumpRecord,
  AnalyzeEngineName,
  AnalyzeRunOptions,
  AnalyzeSummary,
  SummaryBucket,
  SummaryFailure,
} from './analyze-record.js';

interface BucketState {
  id: string;
  signature: string;
  algorithm: string;
  exception: { code: string; name: string } | null;
  files: string[];
  firstSeen?: string;
  lastSeen?: string;
  versions: Map<string, { module: string; version: string | null; count: number }>;
  failureBucketIds: Set<string>;
}

export class SummaryBuilder {
  private dumps = 0;
  private okCount = 0;
  private truncatedCount = 0;
  private readonly failures: SummaryFailure[] = [];
  private readonly quarantined: SummaryFailure[] = [];
  private readonly buckets = new Map<string, BucketState>();
  private readonly exceptions = new Map<string, { code: string; name: string; count: number }>();
  private readonly engines = new Set<AnalyzeEngineName>();
  private readonly algorithms = new Set<string>();

  constructor(private readonly algorithm: string) {}

  add(record: AnalyzeDumpRecord): void {
    this.dumps++;
    this.engines.add(record.engine);
    if (record.truncated === true) this.truncatedCount++;
    if (!record.ok) {
      const failure: SummaryFailure = {
        file: record.file,
        sha256: record.sha256,
        code: record.error?.code ?? 'UNKNOWN',
        message: record.error?.message ?? '',
      };
      (record.quarantined === true ? this.quarantined : this.failures).push(failure);
    } else {
      this.okCount++;
      if (record.exception !== null) {
        const key = record.exception.code;
        const entry = this.exceptions.get(key) ?? {
          code: key,
          name: record.exception.name,
          count: 0,
        };
        entry.count++;
        entry.name = commonName(entry.name, record.exception.name);
        this.exceptions.set(key, entry);
      }
    }
    if (record.bucket !== null && record.ok) this.addToBucket(record);
  }

  private addToBucket(record: AnalyzeDumpRecord): void {
    const ref = record.bucket;
    if (ref === null) return;
    this.algorithms.add(ref.algorithm);
    let state = this.buckets.get(ref.id);
    if (state === undefined) {
      state = {
        id: ref.id,
        signature: ref.signature,
        algorithm: ref.algorithm,
        exception:
          record.exception === null
            ? null
            : { code: record.exception.code, name: record.exception.name },
        files: [],
        versions: new Map(),
        failureBucketIds: new Set(),
      };
      this.buckets.set(ref.id, state);
    }
    state.files.push(record.file);
    if (state.exception !== null && record.exception !== null) {
      state.exception.name = commonName(state.exception.name, record.exception.name);
    }
    const time = record.dumpTimestamp;
    if (time !== undefined) {
      if (state.firstSeen === undefined || time < state.firstSeen) state.firstSeen = time;
      if (state.lastSeen === undefined || time > state.lastSeen) state.lastSeen = time;
    }
    const faulting = record.modules.faulting;
    if (faulting !== undefined) {
      const version = faulting.fileVersion ?? null;
      const key = `${faulting.name}\u0000${version ?? ''}`;
      const entry = state.versions.get(key) ?? { module: faulting.name, version, count: 0 };
      entry.count++;
      state.versions.set(key, entry);
    }
    const fbid = record.analyze?.failureBucketId;
    if (fbid !== undefined) state.failureBucketIds.add(fbid);
  }

  build(
    extra: {
      interrupted?: boolean;
      generatedAt?: Date;
      options?: AnalyzeRunOptions;
      skippedInputs?: Record<string, number>;
    } = {},
  ): AnalyzeSummary {
    const buckets: SummaryBucket[] = [...this.buckets.values()]
      .map((state): SummaryBucket => {
        const files = [...state.files].sort();
        return {
          id: state.id,
          signature: state.signature,
          algorithm: state.algorithm,
          count: files.length,
          exception: state.exception,
          ...(state.firstSeen === undefined ? {} : { firstSeen: state.firstSeen }),
          ...(state.lastSeen === undefined ? {} : { lastSeen: state.lastSeen }),
          representative: files[0] ?? '',
          files,
          moduleVersions: [...state.versions.values()].sort(
            (a, b) => b.count - a.count || a.module.localeCompare(b.module),
          ),
          failureBucketIds: [...state.failureBucketIds].sort(),
        };
      })
      .sort((a, b) => b.count - a.count || byCodePoint(a.id, b.id));
    const top = [...this.exceptions.values()].sort(
      (a, b) => b.count - a.count || byCodePoint(a.code, b.code),
    )[0];
    const byFile = (a: SummaryFailure, b: SummaryFailure) => a.file.localeCompare(b.file);
    const tool = packageInfo();
    return {
      schemaVersion: 1,
      tool: { name: tool.name, version: tool.version },
      ...(extra.options === undefined ? {} : { options: extra.options }),
      generatedAt: (extra.generatedAt ?? new Date()).toISOString(),
      algorithm: this.algorithms.size === 1 ? [...this.algorithms][0]! : this.algorithm,
      engines: [...this.engines].sort(),
      dumps: this.dumps,
      ok: this.okCount,
      failed: this.dumps - this.okCount,
      ...(this.truncatedCount === 0 ? {} : { truncated: this.truncatedCount }),
      quarantined: [...this.quarantined].sort(byFile),
      failures: [...this.failures].sort(byFile),
      buckets,
      topException: top ?? null,
      ...(extra.interrupted === true ? { interrupted: true } : {}),
      ...(extra.skippedInputs === undefined ? {} : { skippedInputs: extra.skippedInputs }),
    };
  }
}

/**
 * Bucket ids and exception codes are lower-case hex (`9f85d6c064df7708`, `0xc0000005`: the record
 * schema's patterns), which localeCompare orders as code points do. It is not used for them: its
 * first call in a process builds ICU's collator (~8 ms of CPU), paid by every run for one sort.
 */
function byCodePoint(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The shared leading words of two exception names: `Access violation writing 0x10` and
 * `Access violation writing 0x28` → `Access violation writing`. Names carry per-dump details (the
 * address), and a summary line speaks for many dumps.
 */
export function commonName(a: string, b: string): string {
  if (a === b) return a;
  const x = a.split(' ');
  const y = b.split(' ');
  let n = 0;
  while (n < x.length && n < y.length && x[n] === y[n]) n++;
  return n === 0 ? a : x.slice(0, n).join(' ');
}
