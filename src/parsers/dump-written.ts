// `.dump` (cdb) and `minidump` (winedbg): was a dump file written?
import { defineParser } from './descriptor.js';
import { dropEcho } from './prompt.js';
import { splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { RecordBase } from './records.js';

export interface DumpWrittenRecord extends RecordBase {
  path?: string;
  success: boolean;
  error?: string;
  /** `Creating X - mini user dump`: the kind cdb names. */
  dumpType?: string;
  /** `Dump creation failed, Win32 error 0n5`. */
  win32Error?: number;
}

// Creating exception.dmp - mini user dump
// Creating x:\dumps\…\FULLDUMP_HangMode_w3wp.exe__16ec_….dmp - mini user dump
const CREATING_RE = /^\s*Creating (.{1,2000}?) - ([\w ]{1,60} dump)\s*$/;
// Dump successfully written
const SUCCESS_RE = /^\s*Dump successfully written\b/;
// Dump creation failed, Win32 error 0n5
const FAILED_RE = /^\s*Dump creation failed(?:, Win32 error 0n(\d{1,10}))?/;
//     "Access is denied."
const QUOTED_RE = /^\s*"(.{0,2000})"\s*$/;
// winedbg failures, as winedbg prints them (test/parsers/fixtures/winedbg/*.txt show the first
// for `kill`; the syntax errors come from winedbg's command parser, Wine's
// programs/winedbg/debug.l and dbg.y): `No process loaded, cannot execute 'minidump …'`,
// `Syntax Error (:)`, `syntax error`.
const WINE_ERROR_RE = /^(?:No process loaded, cannot execute|Syntax Error|syntax error)/i;

/**
 * `command` gives the path when the output does not name it (winedbg prints nothing on
 * success: the last argument of `minidump PATH` is the file).
 */
export function parseDumpWritten(text: string, command?: string | null): DumpWrittenRecord {
  const warnings = createWarningList();
  const record: DumpWrittenRecord = { success: false, warnings: [] };
  const errors: string[] = [];
  let sawOutput = false;
  let sawSuccess = false;
  for (const line of dropEcho(splitLines(text).map((l) => l.trimEnd()))) {
    if (line.trim().length === 0) continue;
    sawOutput = true;
    const creating = CREATING_RE.exec(line);
    if (creating) {
      record.path = creating[1] ?? '';
      record.dumpType = creating[2] ?? '';
      continue;
    }
    if (SUCCESS_RE.test(line)) {
      sawSuccess = true;
      continue;
    }
    const failed = FAILED_RE.exec(line);
    if (failed) {
      errors.push(line.trim());
      if (failed[1] !== undefined) record.win32Error = Number.parseInt(failed[1], 10);
      continue;
    }
    const quoted = QUOTED_RE.exec(line);
    if (quoted && errors.length > 0) {
      errors.push(quoted[1] ?? '');
      continue;
    }
    if (WINE_ERROR_RE.test(line.trim())) {
      errors.push(line.trim());
      continue;
    }
    // Engine diagnostics while writing (`WriteFullMemory.QueryVirtual(0x0) … failed`) are kept
    // as warnings: they do not decide success on their own.
    warnings.add(unplaced(line));
  }
  const isWinedbg = command != null && /^\s*minidump\b/i.test(command);
  record.success = errors.length === 0 && (sawSuccess || (isWinedbg && !sawOutput));
  if (errors.length > 0) record.error = errors.join('\n');
  else if (!record.success)
    record.error = sawOutput ? 'no "Dump successfully written" line' : 'no output';
  if (record.path === undefined && command != null) {
    const path = pathFromCommand(command);
    if (path !== undefined) record.path = path;
  }
  record.warnings = warnings.list();
  return record;
}

/** The last argument of `.dump /ma "C:\x.dmp"` or `minidump /tmp/x.dmp`, quotes removed. */
function pathFromCommand(command: string): string | undefined {
  const trimmed = command.trim();
  const quoted = /"([^"]{1,2000})"\s*$/.exec(trimmed);
  if (quoted?.[1] !== undefined) return quoted[1];
  const parts = trimmed.split(/\s+/);
  if (parts.length < 2) return undefined;
  const last = parts[parts.length - 1];
  return last === undefined || (last.startsWith('/') && /^\/[a-zA-Z]+$/.test(last))
    ? undefined
    : last;
}

export const dumpWrittenDescriptor = defineParser({
  kind: 'dumpWritten',
  commands: [
    // .dump /ma /o c:\\dumps\\app.dmp
    /^\.dump(?:\s|$)/i,
    // winedbg: minidump "/tmp/app.dmp"
    /^minidump(?:\s|$)/,
  ],
  parse: (text, command) => parseDumpWritten(text, command),
  summary: (record) => [
    record.success ? `written ${record.path ?? ''}` : `failed: ${record.error ?? ''}`,
  ],
});
