// `!address -summary`: region counts and sizes by usage (`--- Usage Summary ---`), then the same
// kind of table by type, state and protection.
//
// One published excerpt shows this command (test/fixtures/transcripts/misc/
// docs-address-summary-usage-excerpt.txt, quoted by MicrosoftDocs/SupportArticles-docs,
// support/windows-server/performance/troubleshoot-application-service-memory-leaks.md); only the
// `--- X Summary ---` tables are read, other parts of the output (largest free block, older
// `-------------------- Usage SUMMARY` layouts) go to warnings.
import { defineParser } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { RecordBase } from './records.js';

export interface AddressSummaryRecord extends RecordBase {
  usage: { name: string; regionCount: number; totalSize: number }[];
  /** Rows of the other `--- X Summary ---` sections, by section title. */
  otherSections?: {
    title: string;
    rows: { name: string; regionCount: number; totalSize: number }[];
  }[];
}

type UsageRow = AddressSummaryRecord['usage'][number];

// 0:000> !address -summary
const COMMAND_RE = /^!address\b/i;
// --- Usage Summary ---------------- RgnCount ----------- Total Size -------- %ofBusy %ofTotal
const SECTION_RE = /^\s*---\s+(.+?)\s+-{3,}\s+RgnCount\b/i;
// Free                                     58        0`85c87000 (   2.090 GB)           52.26%
// <unknown>                                56        0`7866f000 (   1.881 GB)  98.52%   47.03%
const ROW_RE =
  /^\s*(\S(?:.*\S)?)\s+(\d+)\s+([0-9a-f`]+)\s+\(\s*[\d.]+\s+[KMGT]?B\s*\)(?:\s+[\d.]+%){1,2}\s*$/i;

export function parseAddressSummary(text: string): AddressSummaryRecord {
  const warnings = createWarningList();
  const record: AddressSummaryRecord = { usage: [], warnings: [] };
  let rows: UsageRow[] | null = null;

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) continue;
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    const section = SECTION_RE.exec(line);
    if (section) {
      const title = (section[1] ?? '').trim();
      if (/^Usage Summary$/i.test(title)) rows = record.usage;
      else {
        rows = [];
        (record.otherSections ??= []).push({ title, rows });
      }
      continue;
    }
    const m = rows === null ? null : ROW_RE.exec(line);
    if (m && rows !== null) {
      const totalSize = Number.parseInt((m[3] ?? '').replace(/`/g, ''), 16);
      if (Number.isSafeInteger(totalSize)) {
        rows.push({ name: m[1] ?? '', regionCount: Number(m[2]), totalSize });
        continue;
      }
    }
    warnings.add(unplaced(line));
  }
  record.warnings = warnings.list();
  return record;
}

export const addressSummaryDescriptor = defineParser({
  kind: 'addressSummary',
  commands: [
    // !address -summary
    /^!address\b.*\s-summary\b/i,
  ],
  parse: (text) => parseAddressSummary(text),
  summary: (record) => [`${record.usage.length} usage row(s)`],
});
