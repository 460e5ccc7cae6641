// SOS `!dumpheap -short` (with `-mt MT`, `-type T`, `-min`/`-max`): one object address per line and
// nothing else, the form scripts feed to `!gcroot` (dotnet-dump 10 recordings,
// test/fixtures/transcripts/dotnet-dump/dumpheap-*short*-linux-net10.txt). A whole heap is
// millions of lines, so the record keeps at most `maxAddresses` (default 10,000) and counts the rest.
import { defineParser, SOS_PREFIX } from './descriptor.js';
import { isBareCommand, isPromptLine } from './command-echo.js';
import { hexToken } from './hex-token.js';
import { feedText, type LineParser } from './line-parser.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface DumpHeapShortRecord extends RecordBase {
  /** Object addresses in heap order (the first `maxAddresses`). */
  addresses: Hex[];
  /** Every address line seen, kept or not. */
  count: number;
  /** True when `count` is larger than `addresses.length`. */
  truncated: boolean;
}

export interface DumpHeapShortOptions {
  maxAddresses?: number;
}

const DEFAULT_MAX_ADDRESSES = 10_000;
// 0:000> !dumpheap -mt 00007ffb647dbf30 -short
const COMMAND_RE = /^!?(?:sos\.)?dumpheap\b/i;
// 7f4c0d80b988   /   00000236cc3e92b0   /   0x00000236cc3e92b0
const ADDRESS_RE = /^\s*((?:0x)?[0-9a-f`]{4,17})\s*$/i;

export function createDumpHeapShortParser(
  options: DumpHeapShortOptions = {},
): LineParser<DumpHeapShortRecord> {
  const max = options.maxAddresses ?? DEFAULT_MAX_ADDRESSES;
  const warnings = createWarningList();
  const addresses: Hex[] = [];
  let count = 0;
  return {
    push(line: string): void {
      const m = ADDRESS_RE.exec(line);
      const address = m ? hexToken((m[1] ?? '').toLowerCase().replace(/^0x/, '')) : null;
      if (address !== null) {
        count++;
        if (addresses.length < max) addresses.push(address);
        return;
      }
      if (line.trim().length === 0) return;
      if (isPromptLine(line) || isBareCommand(line, COMMAND_RE)) return;
      warnings.add(unplaced(line));
    },
    finish(): DumpHeapShortRecord {
      return { addresses, count, truncated: count > addresses.length, warnings: warnings.list() };
    },
  };
}

export function parseDumpHeapShort(
  text: string,
  options: DumpHeapShortOptions = {},
): DumpHeapShortRecord {
  return feedText(createDumpHeapShortParser(options), text);
}

export const dumpHeapShortDescriptor = defineParser({
  kind: 'dumpHeapShort',
  commands: [
    // !dumpheap -mt 00007ffb647dbf30 -short   /   dumpheap -type X -short
    new RegExp(`^${SOS_PREFIX}dumpheap\\b.*\\s-short\\b`, 'i'),
  ],
  parse: (text) => parseDumpHeapShort(text),
  summary: (record) => [
    `${record.count} object(s)${record.truncated ? ` (first ${record.addresses.length} kept)` : ''}`,
    ...record.addresses.slice(0, 5),
  ],
});
