// What watch does at each exception stop: decide cheaply whether it was selected at all, identify
// it (identify.ts), run the filters and the dump policy, write the dump and check it, and build
// the exceptions.ndjson line. Also logs the first chances a debugger printed without stopping.
import type { DebuggerSession } from '../../engine/debugger-session.js';
import type { StopEvent } from '../../engine/dialects/common/stop-event.js';
import { errorMessage, isHarnessError } from '../../errors.js';
import { parseDumpWritten } from '../../parsers/dump-written.js';
import { exceptionDumpName } from '../dump/dump-name.js';
import { fileBytes, reserveDumpFile, setAsidePartial, watchFileGrowth } from '../dump/dump-file.js';
import { verifyDump } from '../dump/verify-dump.js';
import type { DumpPolicy } from './dump-policy.js';
import { isSelected, type ExceptionSelection } from './exception-codes.js';
import { evaluateFilters, type FilterSet } from './filter.js';
import {
  fromStop,
  identifyStop,
  type IdentifiedException,
  type IdentifiedLineFields,
} from './identify.js';
import { bucketOfDump, type DumpBucketOptions } from '../analyze/dump-bucket.js';
import { exceptionSignature } from './signature.js';
import type { SosLoader } from './sos-loader.js';
import type { WatchedProcess } from './watch-target.js';
import type { WatchExceptionLine } from './watch-records.js';

export interface ExceptionHandlerSettings {
  session: DebuggerSession;
  proc: WatchedProcess;
  outDir: string;
  selection: ExceptionSelection;
  filters: FilterSet;
  policy: DumpPolicy;
  dumpKind: 'full' | 'mini';
  frames: number;
  commandTimeoutMs: number;
  dumpTimeoutMs: number;
  verifyDumps: boolean;
  /**
   * How a written dump is bucketed: analyze's way (analyze/dump-bucket.ts), so the line's bucket
   * is the one `analyze` gives that dump with the same symbols and images.
   */
  bucketing?: DumpBucketOptions;
  sos: SosLoader | null;
  onDumpProgress(progress: { path: string; bytes: number; bytesPerSecond: number }): void;
}

export class ExceptionHandler {
  /** The running exception count: every line's `index`. */
  index = 0;

  constructor(private readonly settings: ExceptionHandlerSettings) {}

  /** --max-dumps reached. */
  get quotaReached(): boolean {
    return this.settings.policy.quotaReached;
  }

  /**
   * Puts the analyze bucket of the dump this line wrote on it, with the images and symbol files
   * used. Called once the target runs again: reading the dump never holds the target.
   */
  async bucket(line: WatchExceptionLine): Promise<void> {
    if (line.action !== 'dumped' || line.dumpPath === undefined) return;
    const found = await bucketOfDump(line.dumpPath, this.settings.bucketing ?? {});
    if (found.bucket !== null) line.bucket = found.bucket;
    if (found.images !== undefined) line.images = found.images;
    if (found.symbols !== undefined) line.symbols = found.symbols;
    if (found.error !== undefined) (line.notes ??= []).push(`no bucket: ${found.error}`);
  }

  /** First chances the debugger printed without stopping (cdb under sxd), as skipped lines. */
  passedEvents(stop: StopEvent): WatchExceptionLine[] {
    const { session } = this.settings;
    if (!session.dialect.abilities.printsPassedExceptions) return [];
    const events = session.dialect.findEvents(stop.text);
    const passed = stop.kind === 'exception' ? events.slice(0, -1) : events;
    return passed.map((event) => ({
      time: new Date().toISOString(),
      index: ++this.index,
      chance: event.chance,
      code: event.code,
      description: event.description,
      ...(event.clrExceptionType === undefined ? {} : { clrType: event.clrExceptionType }),
      ...(event.clrExceptionMessage === undefined ? {} : { clrMessage: event.clrExceptionMessage }),
      frames: [],
      signature: exceptionSignature({
        code: event.code,
        clrType: event.clrExceptionType,
        frames: [],
      }),
      matched: false,
      action: 'skipped',
      reason: 'not-selected',
      suspendedMs: 0,
    }));
  }

  /** Builds the line for one exception stop; the caller sets suspendedMs when it resumes. */
  async handle(stop: StopEvent): Promise<WatchExceptionLine> {
    const { settings } = this;
    this.index++;
    const quick = fromStop(stop);
    const base = {
      time: new Date(Date.now() - (performance.now() - stop.atMs)).toISOString(),
      index: this.index,
    };
    if (!isSelected(settings.selection, quick.code, quick.chance)) {
      // The hot path (winedbg breaks on every first chance): no questions, straight back.
      return {
        ...base,
        ...describe(quick),
        frames: [],
        signature: exceptionSignature({ code: quick.code, frames: [] }),
        matched: false,
        action: 'skipped',
        reason: 'not-selected',
        suspendedMs: 0,
      };
    }
    const identifyStart = performance.now();
    const id = await identifyStop(settings.session, stop, {
      frames: settings.frames,
      timeoutMs: settings.commandTimeoutMs,
      sos: settings.sos,
    });
    const identifyMs = performance.now() - identifyStart;
    const signature = exceptionSignature({
      code: id.code,
      clrType: id.clrType,
      frames: id.frames,
      parameters: id.parameters,
    });
    const decision = evaluateFilters(settings.filters, id);
    const line: WatchExceptionLine = {
      ...base,
      ...describe(id),
      frames: id.frames,
      signature,
      matched: decision.matched,
      matchedBy: decision.by,
      action: 'skipped',
      suspendedMs: 0,
      identifyMs: round(identifyMs),
    };
    if (id.notes.length > 0) line.notes = [...id.notes];
    if (!decision.matched) {
      line.reason = 'filter';
      return line;
    }
    const verdict = settings.policy.decide(signature);
    if (!verdict.dump) {
      line.reason = verdict.reason;
      return line;
    }
    await this.dumpAt(id, signature, line);
    return line;
  }

  private async dumpAt(
    id: IdentifiedException,
    signature: string,
    line: WatchExceptionLine,
  ): Promise<void> {
    const { settings } = this;
    const { session, proc, dumpKind } = settings;
    const dumpStart = performance.now();
    const name = exceptionDumpName({
      process: proc.name,
      pid: proc.pid ?? 0,
      code: id.code,
      clrType: id.clrType,
      time: new Date(),
    });
    // An unwritable --out is a harness error: it ends the watch (safely) rather than silently
    // logging dumps that never exist.
    const path = await reserveDumpFile(settings.outDir, name, { numbered: true });
    const stopProgress = watchFileGrowth(path, (p) =>
      settings.onDumpProgress({ path, bytes: p.bytes, bytesPerSecond: p.bytesPerSecond }),
    );
    let output = '';
    let commandError: string | null = null;
    try {
      const result = await session.writeDump(path, dumpKind, {
        timeoutMs: settings.dumpTimeoutMs,
      });
      output = result.output;
    } catch (error) {
      commandError = errorMessage(error).split('\n')[0] ?? 'dump command failed';
      if (isHarnessError(error) && error.code === 'DEBUGGER_EXITED') throw error;
    } finally {
      stopProgress();
    }
    const written = parseDumpWritten(output, session.dialect.writeDumpCommand(path, dumpKind));
    const bytes = await fileBytes(path);
    // cdb says `Dump successfully written`; winedbg says nothing on success (dump-written.ts).
    if (commandError !== null || !written.success || bytes === 0) {
      const kept = await setAsidePartial(path);
      line.reason = 'dump-failed';
      line.dumpError =
        commandError ??
        written.error ??
        (bytes === 0 ? 'the debugger wrote an empty file' : 'dump failed');
      if (kept !== null) line.dumpPath = kept;
      line.dumpMs = round(performance.now() - dumpStart);
      return;
    }
    settings.policy.recordDump(signature);
    line.action = 'dumped';
    line.dumpPath = path;
    line.dumpBytes = bytes;
    if (settings.verifyDumps) {
      const check = await verifyDump(
        path,
        {
          ...(proc.pid === undefined ? {} : { pid: proc.pid }),
          ...(id.code === null ? {} : { exceptionCode: id.code }),
          kind: dumpKind,
        },
        { engine: session.dialect },
      );
      line.dumpVerified = check.verified;
      // What the debugger's text left out (winedbg prints no exception parameters): a CLR
      // exception's HRESULT from the record the dump holds (src/processor/clr.ts).
      const parameters = check.exceptionParameters ?? [];
      if (line.parameters === undefined && parameters.length > 0) line.parameters = parameters;
      if (line.hresult === undefined && check.clr?.hresult !== undefined) {
        line.hresult = check.clr.hresult;
      }
      const notes = [...check.problems, ...check.notes];
      // Why the record has no HRESULT, when nothing else (SOS) named the exception.
      if (
        check.clr?.note !== undefined &&
        line.hresult === undefined &&
        line.clrType === undefined
      ) {
        notes.push(check.clr.note);
      }
      if (notes.length > 0) line.notes = [...(line.notes ?? []), ...notes];
    }
    line.dumpMs = round(performance.now() - dumpStart);
  }
}

function describe(
  id: IdentifiedException,
): IdentifiedLineFields & Pick<WatchExceptionLine, 'description'> {
  return {
    chance: id.chance,
    code: id.code,
    ...(id.description === null ? {} : { description: id.description }),
    ...(id.threadId === undefined ? {} : { threadId: id.threadId }),
    ...(id.address === undefined ? {} : { address: id.address }),
    ...(id.parameters === undefined ? {} : { parameters: id.parameters }),
    ...(id.clrType === undefined ? {} : { clrType: id.clrType }),
    ...(id.clrMessage === undefined ? {} : { clrMessage: id.clrMessage }),
    ...(id.hresult === undefined ? {} : { hresult: id.hresult }),
    ...(id.innerExceptions === undefined ? {} : { innerExceptions: id.innerExceptions }),
  };
}

export function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
