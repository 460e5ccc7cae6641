// The banner cdb/WinDbg prints before its first prompt: version, what it opened (dump file and
// kind, command line, attach), search paths, the OS line and the session times.
import { defineParser } from './descriptor.js';
import { normalizeCode, splitLines } from './text.js';
import { createWarningList } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface StartupRecord extends RecordBase {
  debuggerVersion?: string;
  dumpFile?: string;
  dumpKind?: string;
  symbolPath?: string;
  /** `AMD64`, `X86` from the version line. */
  debuggerArchitecture?: string;
  executablePath?: string;
  commandLine?: string;
  /** `Windows 10 Version 14393 MP (8 procs) Free x64` */
  osVersion?: string;
  builtBy?: string;
  debugSessionTime?: string;
  systemUptime?: string;
  processUptime?: string;
  /** `Comment: 'HangMode'` (a comment stream in the dump). */
  comment?: string;
  /** `This dump file has an exception of interest stored in it.` */
  exceptionOfInterest?: boolean;
  /** `*** wait with pending attach` */
  pendingAttach?: boolean;
  /** Opening the target failed: `Could not open dump file [...], HRESULT 0x80004005`. */
  error?: string;
  hresult?: Hex;
}

// Microsoft (R) Windows Debugger Version 10.0.10586.567 AMD64
// (jit-attach transcript: the doc's stray `n` in `nMicrosoft (R) …` is tolerated)
const VERSION_RE = /Microsoft \(R\) Windows Debugger Version (\S{1,40})(?: (\S{1,20}))?/;
// Loading Dump File [C:\Users\Admin\AppData\Local\Temp\AppScanGui.DMP]
const DUMP_FILE_RE = /^\s*Loading Dump File \[(.{1,2000})\]\s*$/;
// User Mini Dump File with Full Memory: Only application data is available
// User Mini Dump File: Only registers, stack and portions of memory are available
const DUMP_KIND_RE = /^\s*((?:User|Kernel)[\w ]{0,80}?Dump File(?: with [\w ]{1,40}?)?):/;
// Symbol search path is: srv*
const SYMBOL_PATH_RE = /^\s*Symbol search path is: ?(.{0,4000})$/;
// Executable search path is:
const EXE_PATH_RE = /^\s*Executable search path is: ?(.{0,4000})$/;
// CommandLine: C:\Users\…\ExceptionExample.exe
const COMMAND_LINE_RE = /^\s*CommandLine: (.{1,4000})$/;
// Windows 10 Version 14393 MP (8 procs) Free x64
const OS_RE = /^\s*(Windows .{1,200}(?:Free|Checked) \S{1,20})\s*$/;
// Built by: 10.0.14393.0 (rs1_release.160715-1616)
const BUILT_BY_RE = /^\s*Built by: (.{1,200})$/;
// Debug session time: Tue Sep 20 18:00:12.000 2016 (UTC - 7:00)
const SESSION_TIME_RE = /^\s*Debug session time: (.{1,200})$/;
// System Uptime: 0 days 2:27:31.725   /   Process Uptime: not available
const SYSTEM_UPTIME_RE = /^\s*System Uptime: (.{1,200})$/;
const PROCESS_UPTIME_RE = /^\s*Process Uptime: (.{1,200})$/;
// Comment: 'HangMode'
const COMMENT_RE = /^\s*Comment: '(.{0,2000})'\s*$/;
// This dump file has an exception of interest stored in it.
const INTEREST_RE = /exception of interest stored in it/;
// *** wait with pending attach
const PENDING_ATTACH_RE = /^\s*\*\*\* wait with pending attach/;
// Could not open dump file [C:\…\AppScanGui.DMP], HRESULT 0x80004005
//     "Unspecified error"
const OPEN_FAILED_RE = /^\s*(Could not open dump file .{0,2000}?), HRESULT (0x[0-9a-f]{1,8})\s*$/i;
const QUOTED_RE = /^\s*"(.{0,2000})"\s*$/;

/** Takes the whole banner; lines it does not know (ModLoad, registers, …) are not warnings. */
export function parseStartup(text: string): StartupRecord {
  const warnings = createWarningList();
  const record: StartupRecord = { warnings: [] };
  let expectQuote = false;
  for (const raw of splitLines(text)) {
    const line = raw.trimEnd();
    if (line.length === 0) continue;
    if (expectQuote) {
      expectQuote = false;
      const quoted = QUOTED_RE.exec(line);
      if (quoted?.[1] !== undefined && record.error !== undefined) {
        record.error = `${record.error}: ${quoted[1]}`;
        continue;
      }
    }
    readLine(record, line, () => {
      expectQuote = true;
    });
  }
  if (record.debuggerVersion === undefined && record.dumpKind === undefined)
    warnings.add('no debugger version line found');
  record.warnings = warnings.list();
  return record;
}

function readLine(record: StartupRecord, line: string, onError: () => void): void {
  const version = VERSION_RE.exec(line);
  if (version?.[1] !== undefined) {
    record.debuggerVersion ??= version[1];
    if (version[2] !== undefined) record.debuggerArchitecture ??= version[2];
    return;
  }
  const simple: [RegExp, keyof StartupRecord][] = [
    [DUMP_FILE_RE, 'dumpFile'],
    [DUMP_KIND_RE, 'dumpKind'],
    [SYMBOL_PATH_RE, 'symbolPath'],
    [EXE_PATH_RE, 'executablePath'],
    [COMMAND_LINE_RE, 'commandLine'],
    [OS_RE, 'osVersion'],
    [BUILT_BY_RE, 'builtBy'],
    [SESSION_TIME_RE, 'debugSessionTime'],
    [SYSTEM_UPTIME_RE, 'systemUptime'],
    [PROCESS_UPTIME_RE, 'processUptime'],
    [COMMENT_RE, 'comment'],
  ];
  for (const [re, field] of simple) {
    const match = re.exec(line);
    if (match?.[1] !== undefined) {
      const fields = record as unknown as Record<string, string>;
      fields[field] ??= match[1].trim();
      return;
    }
  }
  if (INTEREST_RE.test(line)) record.exceptionOfInterest = true;
  else if (PENDING_ATTACH_RE.test(line)) record.pendingAttach = true;
  else {
    const failed = OPEN_FAILED_RE.exec(line);
    if (failed?.[1] !== undefined) {
      record.error = failed[1];
      const hresult = normalizeCode(failed[2] ?? '');
      if (hresult !== null) record.hresult = hresult;
      onError();
    }
  }
}

export const startupDescriptor = defineParser({
  kind: 'startup',
  commands: [
    // Starting the debugger itself (what follows is its banner): cdb -z crash.dmp, ntsd -g app.exe
    /^(?:cdb|windbg|ntsd|kd|dumpchk)(?:\.exe)?(?:\s|$)/i,
  ],
  parse: (text) => parseStartup(text),
  summary: (record) => [
    `debugger ${record.debuggerVersion ?? '?'}${record.debuggerArchitecture ? ` ${record.debuggerArchitecture}` : ''}`,
    ...(record.dumpFile !== undefined ? [`dump ${record.dumpFile}`] : []),
    ...(record.dumpKind !== undefined ? [`kind ${record.dumpKind}`] : []),
    ...(record.error !== undefined ? [`error: ${record.error}`] : []),
  ],
});
