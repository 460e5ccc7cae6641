// dotnet-dump's `threads` (alias `setthread` with no argument): the OS threads of the dump, one
// per line, the current one marked `*`: the thread index, the OS thread id in hex and, in
// parentheses, the same id in decimal (on Linux the main thread's id is the process id)
// (test/fixtures/transcripts/dotnet-dump/threads-exceptions-linux-net10.txt, dotnet-dump 10).
import { defineParser, SUMMARY_ROWS } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeHex, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface ThreadListEntry {
  /** The tool's thread number (what `setthread N` takes). */
  index: number;
  osThreadId: Hex;
  /** True for the current thread (`*`): the one `clrstack` and `pe` answer for. */
  current: boolean;
}

export interface ThreadListRecord extends RecordBase {
  threads: ThreadListEntry[];
  /** The index of the thread marked `*`, when one is. */
  currentIndex?: number;
}

// > threads    > setthread
const COMMAND_RE = /^(?:threads|setthread)$/i;
// *0 0x4518 (17688)
//  1 0x451A (17690)
const ROW_RE = /^\s*(\*)?\s*(\d+)\s+(0x[0-9a-f]+)(?:\s+\((\d+)\))?\s*$/i;

export function parseThreadList(text: string): ThreadListRecord {
  const warnings = createWarningList();
  const record: ThreadListRecord = { threads: [], warnings: [] };
  for (const raw of splitLines(text)) {
    const line = raw.trimEnd();
    if (line.trim() === '' || isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    const m = ROW_RE.exec(line);
    const id = m === null ? null : normalizeHex(m[3] ?? '');
    if (m === null || id === null) {
      warnings.add(unplaced(line));
      continue;
    }
    const current = m[1] === '*';
    const index = Number(m[2]);
    // The decimal in parentheses is the same id: a disagreement is worth a warning, not a field.
    if (m[4] !== undefined && BigInt(m[4]) !== BigInt(id)) {
      warnings.add(`thread ${index}: ${m[3]} and (${m[4]}) are not the same id`);
    }
    record.threads.push({ index, osThreadId: id, current });
    if (current) record.currentIndex = index;
  }
  record.warnings = warnings.list();
  return record;
}

export const threadListDescriptor = defineParser({
  kind: 'threadList',
  commands: [
    // threads   /   setthread (no argument: it lists)
    COMMAND_RE,
  ],
  parse: (text) => parseThreadList(text),
  summary: (record) => [
    `${record.threads.length} thread(s)${record.currentIndex === undefined ? '' : `, current ${record.currentIndex}`}`,
    ...record.threads
      .slice(0, SUMMARY_ROWS)
      .map((t) => `${t.current ? '*' : ' '}${t.index} ${t.osThreadId}`),
  ],
});
