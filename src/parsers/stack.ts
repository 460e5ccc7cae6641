// Stack backtraces: cdb `k`, `kb`, `kp`, `kn`, `kv`, `kc`, `kL`, `~*k`, `~#kn` (32- and 64-bit,
// with or without the column header, thread headers, inline frames, FPO annotations and symbol
// noise between rows) and winedbg `bt`.
import { defineParser, SUMMARY_ROWS } from './descriptor.js';
import { NO_HEADER, parseCdbFrameRow, parseWinedbgFrameRow, readFrameHeader } from './frames.js';
import type { FrameColumns } from './frames.js';
import { dropEcho } from './prompt.js';
import { normalizeHex, normalizeId, removeSymbolNoise, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface StackFrame {
  frameNumber?: number;
  childSp?: Hex;
  returnAddress?: Hex;
  callSite: string;
  /** callSite split into parts when it has the `module!function+0xoff` shape. */
  module?: string;
  function?: string;
  offset?: Hex;
  /** Source location when the debugger printed one (`[file @ line]`, winedbg `[file:line]`). */
  source?: string;
  /** `(Inline Function)` rows: the frame has no stack pointer or return address of its own. */
  inline?: boolean;
  /** `Args to Child` columns (kb, kv), as printed. */
  args?: Hex[];
  /** winedbg `bt`: the frame's instruction pointer and frame address (the trailing `(0x…)`). */
  ip?: Hex;
  framePointer?: Hex;
}

export interface StackThread {
  threadIndex?: number;
  threadId?: Hex;
  /** From the `~*k` thread header `.  0  Id: 1944.2ac8 Suspend: 0 Teb: 00c06000 Unfrozen`. */
  processId?: Hex;
  suspendCount?: number;
  teb?: Hex;
  /** `.` marks the current thread, `#` the thread of the last event. */
  current?: boolean;
  eventThread?: boolean;
  frames: StackFrame[];
}

export interface StackRecord extends RecordBase {
  threads: StackThread[];
}

// `~*k` thread headers, new and old (NTSD) style:
//   .  0  Id: 1944.2ac8 Suspend: 0 Teb: 00c06000 Unfrozen
//      0  id: 570.574   Suspend: 1 Teb 7ffde000 Unfrozen
const THREAD_HEADER_RE =
  /^\s*(?:([.#])\s*)?(\d+)\s+[Ii]d: ([0-9a-f]+)\.([0-9a-f]+)\s+Suspend:? (-?\d+)\s+Teb:? ([0-9a-f`]+)/;

// Lines that belong to a backtrace but carry no frame:
//   Backtrace:                                   (winedbg)
//   *** Stack trace for last set context - .thread/.cxr resets it
const SKIP_RE = /^\s*(?:Backtrace:|\*\*\* Stack trace for last set context)/;

export function parseStack(text: string): StackRecord {
  const warnings = createWarningList();
  const { lines, noise } = removeSymbolNoise(splitLines(text));
  for (const n of noise) warnings.add(n);
  const threads: StackThread[] = [];
  let thread: StackThread | undefined;
  let columns: FrameColumns = NO_HEADER;
  const current = (): StackThread => {
    if (!thread) {
      thread = { frames: [] };
      threads.push(thread);
    }
    return thread;
  };
  for (const line of dropEcho(lines)) {
    if (line.trim().length === 0 || SKIP_RE.test(line)) continue;
    const header = THREAD_HEADER_RE.exec(line);
    if (header) {
      thread = readThreadHeader(header);
      threads.push(thread);
      columns = NO_HEADER;
      continue;
    }
    const columnHeader = readFrameHeader(line);
    if (columnHeader) {
      columns = columnHeader;
      continue;
    }
    const frame = parseWinedbgFrameRow(line) ?? parseCdbFrameRow(line, columns);
    if (frame) {
      current().frames.push(frame);
      continue;
    }
    warnings.add(unplaced(line));
  }
  return { threads, warnings: warnings.list() };
}

function readThreadHeader(match: RegExpExecArray): StackThread {
  const [, marker, index = '0', pid = '', tid = '', suspend = '0', teb = ''] = match;
  const thread: StackThread = { threadIndex: Number.parseInt(index, 10), frames: [] };
  const threadId = normalizeId(tid);
  const processId = normalizeId(pid);
  const tebHex = normalizeHex(teb);
  if (threadId !== null) thread.threadId = threadId;
  if (processId !== null) thread.processId = processId;
  thread.suspendCount = Number.parseInt(suspend, 10);
  if (tebHex !== null) thread.teb = tebHex;
  if (marker === '.') thread.current = true;
  if (marker === '#') thread.eventThread = true;
  return thread;
}

export const stackDescriptor = defineParser({
  kind: 'stack',
  commands: [
    // k, kb 50, kvn, kP, kc, kL; ~*k, ~* kv, ~#kn 50, ~0k, ~~[1a2b]kb (not kd: raw stack words)
    /^(?:~(?:\*|#|\.|\d+|~\[[0-9a-fx]+\])\s*)?k[bcflnpv]{0,4}(?:\s|$|\()/i,
    // winedbg: bt, backtrace, bt 0x20
    /^(?:bt|backtrace)(?:\s|$)/,
  ],
  parse: (text) => parseStack(text),
  summary: (record) => {
    const frames = record.threads.reduce((n, t) => n + t.frames.length, 0);
    const first = record.threads.find((t) => t.frames.length > 0);
    return [
      `${record.threads.length} thread(s), ${frames} frame(s)`,
      ...(first?.frames
        .slice(0, SUMMARY_ROWS)
        .map((f, i) => `#${f.frameNumber ?? i} ${f.callSite}`) ?? []),
    ];
  },
});
