// Reads a dump we just wrote back with the built-in minidump reader: it must parse, hold the
// process we dumped and, at an exception stop, the exception we stopped on. "The debugger said
// it worked" is not proof (no public transcript shows what cdb prints when a dump write fails).
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import type { Dialect } from '../../engine/dialects/types.js';
import { errorMessage } from '../../errors.js';
import type { InspectedClrException } from '../../processor/clr.js';
import { hex, hex32 } from '../../minidump/bytes.js';
import { processDump } from '../../processor/process-dump.js';
import type { ProcessResult } from '../../processor/process-state.js';

export interface DumpExpectations {
  /** Decimal Windows pid; compared when the dump records one (MiscInfo stream). */
  pid?: number;
  /** `0x…` exception code the dump's exception stream must hold. */
  exceptionCode?: string;
  /** What was asked for; a normal dump for `full` is reported, not failed (see engineNote). */
  kind?: 'full' | 'mini';
}

export interface DumpVerification {
  verified: boolean;
  /** What the reader found. */
  kind?: 'full' | 'mini';
  pid?: number;
  exceptionCode?: string | null;
  /** The dump's exception record parameters (winedbg's text never shows them). */
  exceptionParameters?: string[];
  /** For a CLR exception: the HRESULT the record carries, or why it carries none. */
  clr?: InspectedClrException;
  threads?: number;
  modules?: number;
  /** Why it is not verified, or what looked odd while still verified. */
  problems: string[];
  notes: string[];
}

export async function verifyDump(
  path: string,
  expect: DumpExpectations,
  /** The debugger that wrote the dump (its quirks are notes, not problems). */
  options: { engine?: DialectName | Dialect } = {},
): Promise<DumpVerification> {
  const result: DumpVerification = { verified: false, problems: [], notes: [] };
  const abilities =
    typeof options.engine === 'string'
      ? getDialect(options.engine).abilities
      : options.engine?.abilities;
  let info: ProcessResult;
  try {
    info = await processDump(path, { threads: 'none' });
  } catch (error) {
    result.problems.push(`the dump could not be read: ${errorMessage(error)}`);
    return result;
  }
  if (!info.ok) {
    result.problems.push(`not a readable minidump: ${info.error?.message ?? 'unknown error'}`);
    return result;
  }
  result.kind = info.dumpKind;
  const code = info.exception === null ? undefined : hex32(info.exception.code);
  result.threads = info.threads.length;
  result.modules = info.modules.length;
  if (info.process.pid !== undefined) result.pid = info.process.pid;
  result.exceptionCode = code ?? null;
  if (info.exception) result.exceptionParameters = info.exception.parameters.map((p) => hex(p));
  if (info.exception?.clr) result.clr = info.exception.clr;
  if (
    expect.pid !== undefined &&
    info.process.pid !== undefined &&
    info.process.pid !== expect.pid
  ) {
    result.problems.push(`the dump is of pid ${info.process.pid}, not ${expect.pid}`);
  }
  if (expect.pid !== undefined && info.process.pid === undefined) {
    result.notes.push('the dump records no process id (no MiscInfo stream); pid not checked');
  }
  if (info.threads.length === 0) result.problems.push('the dump holds no threads');
  if (expect.exceptionCode !== undefined) {
    if (code === undefined) result.problems.push('the dump has no exception stream');
    else if (code !== expect.exceptionCode) {
      result.problems.push(`the dump's exception is ${code}, not ${expect.exceptionCode}`);
    }
  } else if (abilities?.dumpExceptionIsAttachBreak === true && code === '0x80000003') {
    // winedbg dumps taken outside an exception always hold the attach break-in.
    result.notes.push(
      'exception stream is the attach break-in (0x80000003), as winedbg always writes',
    );
  }
  if (expect.kind === 'full' && info.dumpKind !== 'full') {
    if (abilities?.fullMemoryDumps === false) {
      result.notes.push(
        'winedbg writes MiniDumpNormal only: --full yielded a normal (mini) dump without full memory',
      );
    } else {
      result.problems.push(`asked for a full-memory dump, the file is a ${info.dumpKind} dump`);
    }
  }
  result.verified = result.problems.length === 0;
  return result;
}
