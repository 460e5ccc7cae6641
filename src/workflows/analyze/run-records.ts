// records.ndjson as an analyze run writes it, with summary.json's tallies and report.html's dump
// rows folded in as each record is appended: the record is at hand then, so writing the summary
// and the report at the end needs no second parse of the file (which cost as much CPU per dump as
// signing and validating the record). Only for a fresh run: with --resume the file also holds
// records of earlier runs, and the summary and report are made from the file as before.
import type { AnalyzeDumpRecord } from '../../report/analyze/analyze-record.js';
import { RecordAppender } from '../../report/analyze/records-file.js';
import { ReportRows } from '../../report/analyze/report-data.js';
import type { ShowPath } from '../../report/analyze/shown-paths.js';
import { SummaryBuilder } from '../../report/analyze/summary.js';
import { heapTrimmer } from './heap-trim.js';

/** What a run gathered for its summary and report (outputs.ts writeSummaryAndReport). */
export interface CollectedOutputs {
  summary: SummaryBuilder;
  rows: ReportRows;
}

export class RunRecords {
  /** A long batch keeps this thread's heap small (heap-trim.ts), whether it analyses or relays. */
  readonly #heap = heapTrimmer();

  private constructor(
    private readonly appender: RecordAppender,
    /** Undefined when the summary and report must be read back from the file (--resume). */
    readonly collected: CollectedOutputs | undefined,
  ) {}

  /**
   * `collect`: the file starts empty and every record of it is appended here (a fresh run over
   * distinct inputs), so what is folded in is exactly what a read of the file would give.
   */
  static async open(
    path: string,
    algorithm: string,
    collect: boolean,
    /** `--relative-paths`: how the report's rows show dump paths. */
    show?: ShowPath,
  ): Promise<RunRecords> {
    const appender = await RecordAppender.open(path);
    return new RunRecords(
      appender,
      collect
        ? { summary: new SummaryBuilder(algorithm), rows: new ReportRows(undefined, show) }
        : undefined,
    );
  }

  /** Appends the line (`json`: the record's text when the caller has it) and folds it in. */
  append(record: AnalyzeDumpRecord, json?: string): Promise<void> {
    const written = this.appender.append(record, json);
    // In the order of the lines: appends are chained in call order (records-file.ts).
    this.collected?.summary.add(record);
    this.collected?.rows.add(record);
    this.#heap.tick();
    return written;
  }

  close(): Promise<void> {
    return this.appender.close();
  }
}
