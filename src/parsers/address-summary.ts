// `!address -summary`: region counts and sizes by usage, then the same kind of table by type, state
// and protection, and the largest region of each usage. Two published layouts are read:
// - the current ext.dll layout, `--- Usage Summary ---… RgnCount … Total Size … %ofBusy %ofTotal`
//   sections with backtick 64-bit sizes and a `--- Largest Region by Usage ---` table
//   (test/fixtures/transcripts/misc/address-summary-net5-x64-all-sections.txt,
//   address-summary-service-fabric-x64-three-sections.txt, docs-address-summary-usage-excerpt.txt);
// - the old layout (WinDbg 6.x, also printed at the end of a bare `!address`):
//   `-------------------- Usage SUMMARY ----` sections of `TotSize (KB) : Pct : Name` rows with no
//   region count, a `Tot: … Busy: …` line and `Largest free region: Base … - Size …`
//   (misc/address-summary-old-layout-x86-dotnet-docs.txt).
import { defineParser } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { normalizeHex } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface AddressSummaryRow {
  name: string;
  /** Absent in the old layout, which prints no region counts. */
  regionCount?: number;
  totalSize: number;
}

export interface AddressSummaryRecord extends RecordBase {
  usage: AddressSummaryRow[];
  /** Rows of the other summary sections (Type, State, Protect), by section title. */
  otherSections?: { title: string; rows: AddressSummaryRow[] }[];
  /** `--- Largest Region by Usage ---`: base address and size of the largest region of each usage. */
  largestRegions?: { name: string; baseAddress: Hex; size: number }[];
  /** Old layout: `Tot: 7fff0000 (2097088 KB) Busy: 021db000 (34668 KB)`, in bytes. */
  totalBytes?: number;
  busyBytes?: number;
  /** Old layout: `Largest free region: Base 01432000 - Size 707ee000 (1843128 KB)`. */
  largestFree?: { baseAddress: Hex; size: number };
  /** Which layout the tables were printed in. */
  layout?: 'current' | 'old';
}

// 0:000> !address -summary   /   0:003> !address
const COMMAND_RE = /^!address\b/i;
// --- Usage Summary ---------------- RgnCount ----------- Total Size -------- %ofBusy %ofTotal
const SECTION_RE = /^\s*---\s+(.+?)\s+-{1,}\s+RgnCount\b/i;
// --- Largest Region by Usage ----------- Base Address -------- Region Size ----------
const LARGEST_SECTION_RE = /^\s*---\s+Largest Region by Usage\b/i;
// Free                                     58        0`85c87000 (   2.090 GB)           52.26%
// <unknown>                                56        0`7866f000 (   1.881 GB)  98.52%   47.03%
const ROW_RE =
  /^\s*(\S(?:.*\S)?)\s+(\d+)\s+([0-9a-f`]+)\s+\(\s*[\d.]+\s+[KMGT]?B\s*\)(?:\s+[\d.]+%){1,2}\s*$/i;
// Free                                    236`fe910000     7bbd`6ba00000 ( 123.740 TB)
const LARGEST_ROW_RE =
  /^\s*(\S(?:.*\S)?)\s+([0-9a-f`]+)\s+([0-9a-f`]+)\s+\(\s*[\d.]+\s+[KMGT]?B\s*\)\s*$/i;
// -------------------- Usage SUMMARY --------------------------
const OLD_SECTION_RE = /^\s*-{5,}\s+(\S(?:.*\S)?)\s+SUMMARY\s+-{5,}\s*$/;
// TotSize (     KB)   Pct(Tots) Pct(Busy)   Usage
const OLD_HEADER_RE = /^\s*TotSize\s+\(\s*KB\)/i;
// 701000 (   7172) : 00.34%   20.69%   : RegionUsageIsVAD
// 7de15000 ( 2062420) : 98.35%   : <free>
const OLD_ROW_RE =
  /^\s*([0-9a-f]+)\s+\(\s*\d+\)\s+:\s+[\d.]+%(?:\s+[\d.]+%)?\s+:\s*(\S(?:.*\S)?)\s*$/i;
// Tot: 7fff0000 (2097088 KB) Busy: 021db000 (34668 KB)
const OLD_TOTAL_RE = /^\s*Tot:\s+([0-9a-f`]+)\s+\(\s*\d+\s+KB\)\s+Busy:\s+([0-9a-f`]+)\s+\(/i;
// Largest free region: Base 01432000 - Size 707ee000 (1843128 KB)
const OLD_LARGEST_RE = /Largest free region:\s+Base\s+([0-9a-f`]+)\s+-\s+Size\s+([0-9a-f`]+)/i;

function hexBytes(text: string): number | null {
  const n = Number.parseInt(text.replace(/`/g, ''), 16);
  return Number.isSafeInteger(n) ? n : null;
}

export function parseAddressSummary(text: string): AddressSummaryRecord {
  const warnings = createWarningList();
  const record: AddressSummaryRecord = { usage: [], warnings: [] };
  let rows: AddressSummaryRow[] | null = null;
  let largest = false;
  let old = false;

  const openSection = (title: string): void => {
    largest = false;
    if (/^Usage(?: Summary)?$/i.test(title)) rows = record.usage;
    else {
      rows = [];
      (record.otherSections ??= []).push({ title, rows });
    }
  };

  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/\r/g, '');
    if (line.trim().length === 0) continue;
    if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) continue;
    let m: RegExpExecArray | null;
    if ((m = SECTION_RE.exec(line))) {
      record.layout = 'current';
      old = false;
      openSection((m[1] ?? '').trim());
      continue;
    }
    if (LARGEST_SECTION_RE.test(line)) {
      rows = null;
      largest = true;
      continue;
    }
    if ((m = OLD_SECTION_RE.exec(line))) {
      record.layout = 'old';
      old = true;
      openSection(`${(m[1] ?? '').trim()} Summary`.replace(/^Usage Summary$/, 'Usage'));
      continue;
    }
    if (largest && (m = LARGEST_ROW_RE.exec(line))) {
      const base = normalizeHex(m[2] ?? '');
      const size = hexBytes(m[3] ?? '');
      if (base !== null && size !== null) {
        (record.largestRegions ??= []).push({ name: m[1] ?? '', baseAddress: base, size });
        continue;
      }
    }
    if (old) {
      if (OLD_HEADER_RE.test(line)) continue;
      if (rows !== null && (m = OLD_ROW_RE.exec(line))) {
        const size = hexBytes(m[1] ?? '');
        if (size !== null) {
          (rows as AddressSummaryRow[]).push({ name: m[2] ?? '', totalSize: size });
          continue;
        }
      }
      if ((m = OLD_TOTAL_RE.exec(line))) {
        const total = hexBytes(m[1] ?? '');
        const busy = hexBytes(m[2] ?? '');
        if (total !== null) record.totalBytes = total;
        if (busy !== null) record.busyBytes = busy;
        continue;
      }
    }
    if ((m = OLD_LARGEST_RE.exec(line))) {
      const base = normalizeHex(m[1] ?? '');
      const size = hexBytes(m[2] ?? '');
      if (base !== null && size !== null) record.largestFree = { baseAddress: base, size };
      continue;
    }
    if (rows !== null && (m = ROW_RE.exec(line))) {
      const totalSize = hexBytes(m[3] ?? '');
      if (totalSize !== null) {
        (rows as AddressSummaryRow[]).push({
          name: m[1] ?? '',
          regionCount: Number(m[2]),
          totalSize,
        });
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
    // !address   (old ext.dll: the region list, then the same summary tables)
    /^!address$/i,
  ],
  parse: (text) => parseAddressSummary(text),
  summary: (record) => [
    `${record.usage.length} usage row(s)${record.layout === undefined ? '' : ` (${record.layout} layout)`}`,
  ],
});
