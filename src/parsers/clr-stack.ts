// SOS `!clrstack` (`-a`, `-p`, `-l`, `-f`, `-all`), in cdb and in dotnet-dump: per thread an
// `OS Thread Id:` header, a column header, then `ChildSP IP CallSite` rows; `-a`/`-p`/`-l` add
// `PARAMETERS:`/`LOCALS:` blocks under a frame. Symbol-load noise that cdb prints into the middle of
// a row is removed first (removeSymbolNoise joins the two halves back together).
// `-f` (full) interleaves native and managed frames as `module!function + offset` (or
// `module + offset` with no symbol), keeps the helper frames with a blank IP column
// (`[InlinedCallFrame: …] …`, `[DebuggerU2MCatchHandlerFrame: …]`) and, under the real engine,
// prints bare `ChildSP value` rows where its unwind walks stack words
// (test/fixtures/transcripts/dbgeng/clrstack-f-attach-sessions-sos.txt,
// dotnet-dump/clrstack-f-all-sessions-linux-net10.txt): every row is kept, in order.
import { defineParser, SOS_PREFIX, SUMMARY_ROWS } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeCode, normalizeHex, removeSymbolNoise, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

/** One `-a`/`-p`/`-l` line: `intercept (0x0000003a9acfef08) = 0x0`, `0x… = 0x…`, `<no data>`. */
export interface ClrStackVariable {
  name?: string;
  location?: string;
  /** null for `<no data>`. */
  value: string | null;
}

export interface ClrStackFrame {
  childSp?: Hex;
  ip?: Hex;
  /** As printed, without a trailing `[file @ line]` (that is `source`). */
  callSite: string;
  /** `[GCFrame: 00aff368]` -> `GCFrame` and its address. */
  frameType?: string;
  /** `-f`: `coreclr!coreclr_execute_assembly + 74778` -> `coreclr`; `coreclr + 850300` too. */
  module?: string;
  /** `-f`: the decimal offset after ` + ` (negative when SOS prints `+ -9521`). */
  offset?: number;
  frameAddress?: Hex;
  source?: string;
  parameters?: ClrStackVariable[];
  locals?: ClrStackVariable[];
}

export interface ClrStackThread {
  osThreadId: Hex | null;
  /** The debugger's thread number: `OS Thread Id: 0x23f0 (0)`. */
  threadIndex?: number;
  frames: ClrStackFrame[];
  /** This thread's `Unable to walk the managed stack…` (`~*e !clrstack` prints one per thread). */
  error?: string;
  errorCode?: Hex;
}

export interface ClrStackRecord extends RecordBase {
  threads: ClrStackThread[];
  error?: string;
  /** `Failed to start stack walk: 80070057` -> `0x80070057`. */
  errorCode?: Hex;
  /** Symbol-load noise removed from the output (`*** WARNING: Unable to verify checksum …`). */
  noise?: string[];
  /**
   * SOS's notices that it could not host its managed part (`SOS_HOSTING: Failed to find runtime
   * directory`): its native commands, `!clrstack` among them, still answer.
   */
  hostingNotices?: string[];
}

// 0:000> !clrstack -a        > clrstack -all       0:000> !CLRStack
const COMMAND_RE = /^!?clrstack\b/i;
// OS Thread Id: 0x23f0 (0)
// OS Thread Id: 0x1dc82                (clrstack -all in dotnet-dump: no debugger thread number)
const THREAD_RE = /^\s*OS Thread Id:\s*(0x[0-9a-f]+)(?:\s*\((\d+)\))?\s*$/i;
// Child SP       IP Call Site
//         Child SP               IP Call Site
// (.NET 2.0 SOS names the columns `ESP       EIP`; no transcript shows that header, see tests.)
const HEADER_RE = /^\s*(?:Child SP\s+IP\s+Call Site|ESP\s+EIP)\b/i;
// 00aff1f4 0113089a CrashingApplication.Program.Main(System.String[]) [C:\…\Program.cs @ 10]
// 0000003a9acfed28 00007ffd734351c4 [InlinedCallFrame: 0000003a9acfed28] Microsoft.Win32.Win32Native…
const FRAME_RE = /^\s*([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})\s+(\S.*)$/i;
// 00007FFC0E59BB40                  [InlinedCallFrame: 00007ffc0e59bb40] System.Private.CoreLib.dll!System.Threading.Thread.SleepInternal(Int32)
// 000000000294FD10                  [DebuggerU2MCatchHandlerFrame: 000000000294fd10]
const HELPER_ROW_RE = /^\s*([0-9a-f`]{8,17})\s{2,}(\[\w+:\s*[0-9a-f`]+\].*)$/i;
// 000000000019E9B8 000000000001D4C0      (-f under the real engine: a stack word, no call site)
const BARE_ROW_RE = /^\s*([0-9a-f`]{8,17})\s+([0-9a-f`]{8,17})\s*$/i;
// ntdll!NtDelayExecution + 20    coreclr + 850300    System.Private.CoreLib.dll!…Sleep(Int32) + -9521
const MODULE_OFFSET_RE = /^([^\s![\]()]+)(?:!.*?)?\s\+\s(-?\d+)$/;
// [GCFrame: 00aff368]    [HelperMethodFrame_1OBJ: 006ff254] System.Threading.Monitor.ObjWait(…)
const FRAME_TYPE_RE = /^\[(\w+):\s*([0-9a-f`]+)\]/i;
// … System.Threading.Monitor.Wait(System.Object, Int32) [f:\dd\ndp\clr\src\BCL\system\threading\monitor.cs @ 213]
const SOURCE_RE = /\s\[([^[\]]* @ \d+)\]\s*$/;
//     PARAMETERS:
//     LOCALS:
const BLOCK_RE = /^\s+(PARAMETERS|LOCALS):\s*$/;
//         intercept (0x0000003a9acfef08) = 0x0000000000000000
//         0x0000003a9acfee40 = 0x000001963d847c98
const VARIABLE_RE = /^\s+(?:([^\s(=]+)\s+\(([^()]*)\)|([^\s=]+))\s+=\s+(.*)$/;
//         <no data>
const NO_DATA_RE = /^\s+<no data>\s*$/;
// Unable to walk the managed stack. The current thread is likely not a
const UNABLE_RE = /^\s*Unable to walk the managed stack\b/i;
// SOS_HOSTING: ICLRRuntimeInfo::GetInterface failed 80131700
const HOSTING_RE = /^\s*SOS_HOSTING:\s/;
// Failed to start stack walk: 80070057
const FAILED_START_RE = /^\s*Failed to start stack walk:\s*([0-9a-f]+)\s*$/i;

export function parseClrStack(text: string): ClrStackRecord {
  const warnings = createWarningList();
  const record: ClrStackRecord = { threads: [], warnings: [] };
  const { lines, noise } = removeSymbolNoise(splitLines(text));
  if (noise.length > 0) record.noise = noise;

  let thread: ClrStackThread | null = null;
  let frame: ClrStackFrame | null = null;
  let block: 'parameters' | 'locals' | null = null;
  // Lines of the "Unable to walk…" message, which cdb wraps over three lines.
  let error: string[] | null = null;

  const ensureThread = (): ClrStackThread => {
    if (thread === null) {
      thread = { osThreadId: null, frames: [] };
      record.threads.push(thread);
    }
    return thread;
  };

  for (const line of lines) {
    if (line.trim().length === 0) {
      block = null;
      continue;
    }
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    if (HOSTING_RE.test(line)) {
      (record.hostingNotices ??= []).push(line.trim());
      continue;
    }
    let m: RegExpExecArray | null;

    if ((m = THREAD_RE.exec(line))) {
      thread = { osThreadId: normalizeHex(m[1] ?? ''), frames: [] };
      if (m[2] !== undefined) thread.threadIndex = Number(m[2]);
      record.threads.push(thread);
      frame = null;
      block = null;
      error = null;
      continue;
    }
    if ((m = FAILED_START_RE.exec(line))) {
      const code = normalizeCode(m[1] ?? '');
      if (code !== null) {
        record.errorCode = code;
        if (thread !== null) thread.errorCode = code;
      }
      record.error ??= line.trim();
      error = null;
      continue;
    }
    if (UNABLE_RE.test(line)) {
      error = [line.trim()];
      record.error = ensureThread().error = error.join(' ');
      continue;
    }
    if (HEADER_RE.test(line)) {
      ensureThread();
      frame = null;
      block = null;
      error = null;
      continue;
    }
    const parsed = frameRow(line);
    if (parsed) {
      ensureThread().frames.push(parsed);
      frame = parsed;
      block = null;
      error = null;
      continue;
    }
    if ((m = BLOCK_RE.exec(line)) && frame !== null) {
      block = m[1] === 'PARAMETERS' ? 'parameters' : 'locals';
      frame[block] ??= [];
      continue;
    }
    if (block !== null && frame !== null) {
      const variable = NO_DATA_RE.test(line) ? { value: null } : clrVariable(line);
      if (variable) {
        (frame[block] ??= []).push(variable);
        continue;
      }
    }
    if (error !== null) {
      // managed thread. You can run !threads to get a list of managed threads in
      error.push(line.trim());
      record.error = ensureThread().error = error.join(' ');
      continue;
    }
    warnings.add(unplaced(line));
  }
  record.warnings = warnings.list();
  return record;
}

/** One row: its Child SP, its IP (undefined for a helper row, which prints none), its call site. */
/** A frame row of any of the three shapes (helper, bare stack word, full), or null. */
function frameRow(line: string): ClrStackFrame | null {
  const row = HELPER_ROW_RE.exec(line) ?? BARE_ROW_RE.exec(line);
  if (row) {
    // A helper row's second column is its call site; a bare row's is an address.
    const second = row[2] ?? '';
    const parsed = second.startsWith('[')
      ? clrFrame(row[1] ?? '', undefined, second)
      : clrFrame(row[1] ?? '', second, '');
    if (parsed) return parsed;
  }
  const full = FRAME_RE.exec(line);
  return full ? clrFrame(full[1] ?? '', full[2] ?? '', full[3] ?? '') : null;
}

function clrFrame(
  childSpText: string,
  ipText: string | undefined,
  callSiteText: string,
): ClrStackFrame | null {
  const childSp = normalizeHex(childSpText);
  const ip = ipText === undefined ? undefined : normalizeHex(ipText);
  if (childSp === null || ip === null) return null;
  let callSite = callSiteText.trim();
  const frame: ClrStackFrame = { childSp, ...(ip === undefined ? {} : { ip }), callSite };
  const source = SOURCE_RE.exec(callSite);
  if (source) {
    callSite = callSite.slice(0, source.index).trimEnd();
    frame.callSite = callSite;
    frame.source = source[1] ?? '';
  }
  const type = FRAME_TYPE_RE.exec(callSite);
  if (type) {
    frame.frameType = type[1] ?? '';
    const address = normalizeHex(type[2] ?? '');
    if (address !== null) frame.frameAddress = address;
  } else {
    const named = MODULE_OFFSET_RE.exec(callSite);
    if (named) {
      frame.module = named[1] ?? '';
      frame.offset = Number(named[2]);
    }
  }
  return frame;
}

function clrVariable(line: string): ClrStackVariable | null {
  const m = VARIABLE_RE.exec(line);
  if (!m) return null;
  const value = (m[4] ?? '').trim();
  const variable: ClrStackVariable = { value: value === '<no data>' ? null : value };
  if (m[1] !== undefined) {
    variable.name = m[1];
    variable.location = normalizeHex(m[2] ?? '') ?? (m[2] ?? '').trim();
  } else if (m[3] !== undefined) {
    // An unnamed local prints its stack slot where the name would be.
    const slot = normalizeHex(m[3]);
    if (slot !== null) variable.location = slot;
    else variable.name = m[3];
  }
  return variable;
}

export const clrStackDescriptor = defineParser({
  kind: 'clrStack',
  commands: [
    // !clrstack -a, !sos.clrstack, clrstack (dotnet-dump analyze), ~*e !clrstack -f (every thread)
    new RegExp(`^(?:~\\*e\\s*)?${SOS_PREFIX}clrstack(?:\\s|$)`, 'i'),
  ],
  parse: (text) => parseClrStack(text),
  summary: (record) => [
    `${record.threads.length} thread(s)`,
    ...(record.error !== undefined ? [`error: ${record.error}`] : []),
    ...(record.threads[0]?.frames.slice(0, SUMMARY_ROWS).map((f) => f.callSite) ?? []),
  ],
});
