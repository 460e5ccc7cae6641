// `.lastevent` (cdb) and `info exception` (winedbg): what stopped the target last.
import { defineParser } from './descriptor.js';
import { findDebuggerEvents } from './debugger-event.js';
import { dropEcho } from './prompt.js';
import { normalizeCode, normalizeId, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Chance, Hex, RecordBase } from './records.js';

export interface LastEventRecord extends RecordBase {
  processId?: Hex;
  threadId?: Hex;
  description: string;
  code?: Hex;
  chance?: Chance;
  /** `  debugger time: Thu Apr  2 16:35:59.191 2009 (GMT+8)` */
  debuggerTime?: string;
}

// Newer format, and the process-exit variant (after `sxe epr`; the shapes SkyLined/mBugId's
// cCdbWrapper_ftbHandleLastCdbEvent.py reads, https://github.com/SkyLined/mBugId):
//   Last event: 2388.2f4c: Stack overflow - code c00000fd (!!! second chance !!!)
//   Last event: c74.10e8: Exit process 4:c74, code 0
const LAST_EVENT_RE = /^\s*Last event: (?:([0-9a-f]{1,16})\.([0-9a-f]{1,16}): )?(.{0,2000})$/i;
// `Stack overflow - code c00000fd (!!! second chance !!!)`
const CODE_CHANCE_RE =
  /^(.{1,200}?) - code ([0-9a-f]{1,8}) \((first chance|!!! second chance !!!|first\/second chance not available)\)$/i;
// Old NTSD format: `Last event: Exception C00000FD, second chance`
const OLD_FORMAT_RE = /^Exception ([0-9a-f]{1,8}), (first|second) chance$/i;
// `  debugger time: Thu Apr  2 16:35:59.191 2009 (GMT+8)`
const DEBUGGER_TIME_RE = /^\s*debugger time: (.{1,200})$/;

function chanceOf(text: string): Chance {
  const lower = text.toLowerCase();
  // A dump's stored event (dbgeng 10.0.29507 under Wine, test/fixtures/transcripts/dbgeng/):
  //   Last event: 3c8.3c0: Access violation - code c0000005 (first/second chance not available)
  if (lower.includes('not available')) return null;
  if (lower.startsWith('first chance') || lower === 'first') return 'first';
  if (lower.includes('second chance') || lower === 'second') return 'second';
  return null;
}

export function parseLastEvent(text: string): LastEventRecord {
  const warnings = createWarningList();
  const record: LastEventRecord = { description: '', warnings: [] };
  let found = false;
  for (const line of dropEcho(splitLines(text).map((l) => l.trimEnd()))) {
    if (line.trim().length === 0) continue;
    const last = found ? null : LAST_EVENT_RE.exec(line);
    if (last) {
      found = true;
      readLastEvent(record, last);
      continue;
    }
    const time = DEBUGGER_TIME_RE.exec(line);
    if (time?.[1] !== undefined) {
      record.debuggerTime = time[1];
      continue;
    }
    // winedbg `info exception` repeats the exception line of the stop.
    const wine = found ? undefined : findDebuggerEvents(line, 'winedbg')[0];
    if (wine) {
      found = true;
      record.description = wine.description;
      if (wine.code !== null) record.code = wine.code;
      record.chance = wine.chance;
      continue;
    }
    warnings.add(unplaced(line));
  }
  if (!found) warnings.add('no "Last event:" line found');
  record.warnings = warnings.list();
  return record;
}

function readLastEvent(record: LastEventRecord, match: RegExpExecArray): void {
  const [, pid, tid, rest = ''] = match;
  const processId = pid === undefined ? null : normalizeId(pid);
  const threadId = tid === undefined ? null : normalizeId(tid);
  if (processId !== null) record.processId = processId;
  if (threadId !== null) record.threadId = threadId;
  const withCode = CODE_CHANCE_RE.exec(rest);
  if (withCode) {
    record.description = (withCode[1] ?? '').trim();
    const code = normalizeCode(withCode[2] ?? '');
    if (code !== null) record.code = code;
    record.chance = chanceOf(withCode[3] ?? '');
    return;
  }
  const old = OLD_FORMAT_RE.exec(rest);
  if (old) {
    record.description = rest;
    const code = normalizeCode(old[1] ?? '');
    if (code !== null) record.code = code;
    record.chance = chanceOf(old[2] ?? '');
    return;
  }
  record.description = rest;
}

export const lastEventDescriptor = defineParser({
  kind: 'lastEvent',
  commands: [
    // .lastevent
    /^\.lastevent(?:\s|$)/i,
    // winedbg: info exception
    /^info\s+exception(?:\s|$)/,
  ],
  parse: (text) => parseLastEvent(text),
  summary: (record) => [
    `${record.code ?? '?'} ${record.description} (${record.chance ?? 'n/a'} chance)`,
  ],
});
