// Stack backtraces: cdb `k`, `kb`, `kp`, `kn`, `kv`, `kc`, `kL`, `~*k`, `~#kn` (32- and 64-bit,
// with or without the column header, thread headers, inline frames, FPO annotations and symbol
// noise between rows) and winedbg `bt`.
import { NO_HEADER, parseCdbFrameRow, parseWinedbgFrameRow, readFrameHeader } from './frames.js';
import type { FrameColumns } from './frames.js';
import { dropEcho } from './prompt.js';
import type { StackRecord, StackThread } from './records.js';
import { normalizeHex, normalizeId, removeSymbolNoise, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';

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
