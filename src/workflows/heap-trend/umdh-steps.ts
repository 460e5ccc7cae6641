// The umdh side of a heap-trend run (`--umdh`): check that umdh can work (the image runs with
// +ust), take a snapshot every N samples and at the end, and diff the snapshots into a trend.
// A failed snapshot or diff is a warning in the report, never the end of the run.
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { shortErrorMessage, UsageError } from '../../errors.js';
import type { UmdhTrend } from '../../report/heap-trend/umdh-trend.js';
import { runUmdhDiff } from '../umdh/umdh-diff.js';
import { checkUserStackTraces, takeUmdhSnapshot } from '../umdh/umdh-snapshot.js';
import type { HeapTrendOptions } from './run-heap-trend.js';

export interface UmdhResult {
  snapshots: string[];
  trend?: UmdhTrend;
  error?: string;
}

export class UmdhSteps {
  readonly files: string[] = [];
  private readonly times: string[] = [];

  private constructor(
    private readonly options: HeapTrendOptions,
    /** Why umdh cannot run (undefined: ready, or not asked for). */
    private readonly error: string | undefined,
    private readonly warnings: string[],
  ) {}

  /** `--umdh`: umdh exists (Windows) and the image runs with +ust. */
  static async prepare(options: HeapTrendOptions, warnings: string[]): Promise<UmdhSteps> {
    const error = await checkUst(options).then(
      () => undefined,
      (reason: unknown) => shortErrorMessage(reason),
    );
    return new UmdhSteps(options, error, warnings);
  }

  get enabled(): boolean {
    return this.options.umdh !== undefined && this.error === undefined;
  }

  /** Whether sample `index` gets a snapshot (the first sample, then every N). */
  due(index: number): boolean {
    return this.enabled && index % (this.options.umdh?.every ?? 5) === 0;
  }

  /** Takes one snapshot; returns its file, or undefined when it failed (noted as a warning). */
  async snapshot(label: string): Promise<string | undefined> {
    const { options } = this;
    const file = join(options.outDir, 'umdh', `${label}.log`);
    await mkdir(join(options.outDir, 'umdh'), { recursive: true });
    try {
      const shot = await takeUmdhSnapshot(options.pid, file, {
        ...(options.umdh?.umdhPath === undefined ? {} : { umdhPath: options.umdh.umdhPath }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      });
      this.files.push(shot.file);
      this.times.push(shot.time);
      options.onProgress?.({ kind: 'umdh', file: shot.file });
      return shot.file;
    } catch (error) {
      this.warnings.push(`umdh snapshot ${label} failed: ${shortErrorMessage(error)}`);
      return undefined;
    }
  }

  /** The final snapshot (unless the target is gone or the run was interrupted) and the trend. */
  async finish(takeFinal: boolean): Promise<UmdhResult | undefined> {
    if (this.options.umdh === undefined) return undefined;
    if (this.enabled && takeFinal) await this.snapshot('final');
    const result: UmdhResult = { snapshots: [...this.files] };
    if (this.error !== undefined) result.error = this.error;
    else if (this.files.length >= 2) {
      try {
        result.trend = await runUmdhDiff({ files: this.files, times: this.times });
      } catch (error) {
        result.error = `umdh trend failed: ${shortErrorMessage(error)}`;
      }
    } else {
      result.error = `only ${this.files.length} umdh snapshot(s): a trend needs 2 or more`;
    }
    return result;
  }
}

async function checkUst(options: HeapTrendOptions): Promise<void> {
  if (options.umdh === undefined) return;
  if (options.umdh.skipUstCheck === true) return;
  if (options.name === undefined) {
    throw new UsageError('the +ust check needs the image name (use --name, or --umdh-skip-check)');
  }
  await checkUserStackTraces(options.name, {
    ...(options.umdh.gflagsPath === undefined ? {} : { gflagsPath: options.umdh.gflagsPath }),
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
}
