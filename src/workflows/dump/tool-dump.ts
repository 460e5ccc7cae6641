// A dump written by a dialect's live-dump tool (dotnet-dump collect) instead of a debugger
// session: the same result, file rules (owner-only, never overwritten without --overwrite, a
// failed write set aside) and events as a session's dump (dump.ts), the file read back by the
// tool's own check (an ELF core is no minidump).
import type { LiveDumpTool } from '../../engine/dialects/types.js';
import { IoError, isHarnessError } from '../../errors.js';
import { listProcesses, type LookupOptions, type ProcessInfo } from '../process-lookup.js';
import type { DumpEvent, DumpOptions, DumpResult } from './dump.js';
import { fileBytes, reserveDumpFile, setAsidePartial, watchFileGrowth } from './dump-file.js';
import { dateTimeParts, safeFileComponent } from './dump-name.js';

/** `dotnet_4242_251121_120000.dmp`: ProcDump's order, the process name as the tool lists it. */
export function toolDumpName(process: string, pid: number, time: Date): string {
  const { date, time: clock } = dateTimeParts(time);
  return `${safeFileComponent(process)}_${pid}_${date}_${clock}.dmp`;
}

const roundMs = (ms: number) => Math.round(ms * 100) / 100;

export async function dumpWithTool(
  tool: LiveDumpTool,
  options: DumpOptions,
  proc: ProcessInfo,
  lookup: LookupOptions,
): Promise<DumpResult> {
  const emit = (event: DumpEvent) => options.onEvent?.(event);
  const kind = options.kind ?? 'full';
  const totalStart = performance.now();
  const notes: string[] = [];
  const estimateNote = `no size estimate: ${options.engine} collect gives none`;
  notes.push(estimateNote);
  emit({ type: 'estimate', bytes: null, source: null, note: estimateNote });
  const path = await reserveDumpFile(
    options.outDir,
    toolDumpName(proc.name, proc.pid, options.now ?? new Date()),
    { overwrite: options.overwrite === true, numbered: options.numbered === true },
  );
  const stopProgress = watchFileGrowth(path, (p) => emit({ type: 'progress', path, ...p }));
  let writeMs: number;
  try {
    emit({ type: 'attached', ms: 0 });
    writeMs = (
      await tool.collect(proc.pid, path, kind, {
        timeoutMs: options.dumpTimeoutMs ?? 600_000,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.debuggerPath === undefined ? {} : { debuggerPath: options.debuggerPath }),
        ...(options.signal === undefined ? {} : { signal: options.signal }),
      })
    ).durationMs;
  } catch (error) {
    const kept = await setAsidePartial(path);
    if (isHarnessError(error)) throw error;
    throw new IoError(
      `the dump was not written: ${String(error)} (${kept === null ? 'nothing was kept' : `the partial file is ${kept}`})`,
    );
  } finally {
    stopProgress();
  }
  // The tool does not stop the target beyond its own run, and never attaches a debugger.
  emit({ type: 'detached', detached: true });
  const bytes = await fileBytes(path);
  emit({ type: 'written', path, bytes, writeMs: roundMs(writeMs) });
  const check = await tool.verify(path);
  for (const note of check.notes) notes.push(note);
  if (!check.ok) {
    const kept = await setAsidePartial(path);
    throw new IoError(
      `the dump does not read back: ${check.problems.join('; ')}${kept === null ? '' : ` (kept as ${kept})`}`,
    );
  }
  const targetAlive = (await listProcesses(lookup).catch(() => [])).some((p) => p.pid === proc.pid);
  return {
    schemaVersion: 1,
    engine: options.engine,
    path,
    bytes,
    kind,
    requestedKind: kind,
    actualKind: kind,
    pid: proc.pid,
    processName: proc.name,
    estimateBytes: null,
    estimateSource: null,
    estimateNote,
    writeMs: roundMs(writeMs),
    // collect's run bounds the stop from above: the runtime suspends for the write only.
    suspendedMs: roundMs(writeMs),
    attachMs: 0,
    totalMs: roundMs(performance.now() - totalStart),
    verified: true,
    problems: [],
    notes,
    detached: true,
    targetAlive,
  };
}
