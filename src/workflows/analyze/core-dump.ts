// One Linux core dump through a tool that reads them (`analyze --engine dotnet-dump`), start to
// record, the counterpart of the minidump path in analyze-one.ts. The file is checked first
// (common/elf-core.ts: milliseconds, no tool process): a minidump, an executable, text or an empty
// file gets its failed record with the reason at once. Then the triage script runs in one batch
// and each reply goes to the one parser of its kind (core-fields.ts folds them into the record),
// so a core gives the same record as a Windows dump under cdb + SOS: the managed exception
// (`clrException`), the managed stack (`frames`, `clrStack`), the heap by type (`dumpHeapStat`),
// the threads, and a bucket made from the managed exception and stack.
import { resolve } from 'node:path';
import type { BytePath } from '../../common/byte-path.js';
import type { CoreDumpAnalysis, SosBatchOutputs } from '../../engine/dialects/index.js';
import { AbortedError, errorToJSON, isHarnessError } from '../../errors.js';
import type { AnalyzeDumpRecord, RawOutputRef } from '../../report/analyze/analyze-record.js';
import type { DumpRunContext } from './analyze-one.js';
import { emptyRecord } from './analyze-one.js';
import { absorbCoreOutput, coreFacts, coreNotAvailable } from './core-fields.js';
import { debuggerDumpPath } from './debugger-path.js';
import { rawOutputWriter } from './raw-outputs.js';
import { stepApplies } from './triage-script.js';

// dotnet-dump's reply when SOS finds no .NET runtime in the core (dotnet-dump 10, a core of
// `sleep` written by the runtime's createdump, and a core cut before the runtime's memory):
// Unrecognized SOS command 'pe'
const NO_RUNTIME_RE = /^Unrecognized SOS command '/;

export async function analyzeCoreDump(
  path: BytePath,
  hashed: { sha256: string; size: number },
  ctx: DumpRunContext,
  core: CoreDumpAnalysis,
): Promise<AnalyzeDumpRecord> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const record = emptyRecord(path, hashed, ctx.engine);
  const reading = await core.check(path);
  if (!reading.ok) {
    record.error = { code: 'BAD_DUMP', message: reading.reason };
    record.timings.totalMs = elapsed();
    return record;
  }
  Object.assign(record, coreFacts(reading.facts), { ok: true, attempts: 1 });
  const cut = reading.facts.truncated;
  if (cut !== undefined) {
    record.truncated = true;
    record.warnings.push(
      `truncated: the file ends at byte ${cut.size} where its program headers reach byte ${cut.needed}; read as far as it goes`,
    );
  }
  // A core has no minidump streams to decide `?COND` guards by: every guard holds.
  const all = { exception: true, full: true, clr: true, coreclr: true };
  const commands = ctx.steps.filter((s) => stepApplies(s, all, true)).map((s) => s.command);
  const handedOver = await debuggerDumpPath(path, hashed.sha256, ctx.outDir);
  let batch: SosBatchOutputs;
  const toolStarted = performance.now();
  try {
    batch = await core.analyze(resolve(handedOver.path), commands, {
      timeoutMs: ctx.timeoutMs,
      ...(ctx.signal === undefined ? {} : { signal: ctx.signal }),
      ...(ctx.env === undefined ? {} : { env: ctx.env }),
      ...(ctx.debuggerPath === undefined ? {} : { debuggerPath: ctx.debuggerPath }),
    });
  } catch (error) {
    const code = isHarnessError(error) ? error.code : undefined;
    if (ctx.signal?.aborted === true || code === 'ABORTED') {
      throw code === 'ABORTED' ? error : new AbortedError('analysis interrupted');
    }
    if (code === 'DEBUGGER_NOT_FOUND') throw error;
    record.ok = false;
    record.error = errorToJSON(error);
    if (cut !== undefined) record.error.message = `${record.error.message} (the file is cut short)`;
    record.timings.totalMs = elapsed();
    return record;
  } finally {
    await handedOver.release();
  }
  const writeRaw = await rawOutputWriter(ctx.outDir, hashed.sha256);
  const raw: RawOutputRef[] = [];
  for (const [index, output] of batch.outputs.entries()) {
    const command = commands[index] ?? '';
    raw.push(await writeRaw(index, command, output));
    absorbCoreOutput(record, command, output);
  }
  record.rawOutputs = raw;
  for (const notice of batch.notices ?? []) record.warnings.push(`${ctx.engine}: ${notice}`);
  const stopped = batch.stopped;
  if (stopped !== undefined && NO_RUNTIME_RE.test(stopped.text) && cut === undefined) {
    // The file is a core, but of no .NET process: nothing this engine triages.
    record.ok = false;
    record.error = {
      code: 'BAD_DUMP',
      message: `no .NET runtime in this core (${ctx.engine}: ${stopped.text}): --engine ${ctx.engine} triages dumps of .NET processes`,
      command: stopped.command,
    };
  } else if (stopped !== undefined) {
    const skipped = commands.slice(stopped.index + 1);
    record.warnings.push(
      `${ctx.engine} stopped at "${stopped.command}": ${stopped.text}${skipped.length === 0 ? '' : ` (not run: ${skipped.join(', ')})`}`,
    );
  }
  record.notAvailable = coreNotAvailable(record);
  record.timings = {
    totalMs: elapsed(),
    commands: [],
    debuggerMs: Math.round(performance.now() - toolStarted),
  };
  record.bucket = record.ok ? ctx.signer.sign(record) : null;
  return record;
}
