// Loaded modules: cdb `lm`, `lmv`, `lmvm X` and winedbg `info share`.
import { defineParser, SUMMARY_ROWS } from './descriptor.js';
import { dropEcho } from './prompt.js';
import { normalizeHex, removeSymbolNoise, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface ModuleEntry {
  start: Hex;
  end: Hex;
  name: string;
  symbolStatus?: string;
  imagePath?: string;
  fileVersion?: string;
  /** `lm`: the symbol file printed after the status (`(pdb symbols)  c:\…\ntdll.pdb`). */
  symbolFile?: string;
  /** `lmv` detail lines (`Image name`, `Timestamp`, `Product version`, …) as printed. */
  imageName?: string;
  productVersion?: string;
  timestamp?: string;
  details?: Record<string, string>;
  /** Rows after `Unloaded modules:`. */
  unloaded?: boolean;
  /** winedbg `info share`: `PE` or `ELF`. */
  moduleType?: string;
}

export interface ModulesRecord extends RecordBase {
  modules: ModuleEntry[];
}

// cdb header: `start             end                 module name`
const CDB_HEADER_RE = /^\s*start\s+end\s+module name\s*$/;
// cdb row, then the symbol status and an optional symbol file:
//   00000000`6d010000 00000000`6d5c0000   mscorwks   (deferred)
//   7c900000 7c9af000   ntdll      (pdb symbols)          c:\symbols\ntdll.pdb
const CDB_ROW_RE =
  /^\s*([0-9a-f]{8}(?:`[0-9a-f]{8})?|[0-9a-f]{16})\s+([0-9a-f]{8}(?:`[0-9a-f]{8})?|[0-9a-f]{16})\s+(\S{1,300})(?:\s+(\S.{0,2000}))?$/i;
// `(deferred)`, `(pdb symbols)  c:\…\ntdll.pdb`, `C (private pdb symbols)`, `M (no symbols)`
const STATUS_RE = /^(?:[A-Z]{1,3}\s+)?\(([^()]{1,80})\)\s*(.{0,2000})$/;
// lmv detail lines: `    Image path: C:\Windows\…\mscorwks.dll`, `    File version:     2.0.50727.8941`
const DETAIL_RE = /^\s{2,}([A-Za-z][A-Za-z ]{0,40}?):\s+(\S.{0,2000})?$/;
// lmv's heading over the version resource, printed even when the image has none (the real engine
// on a mingw program, test/fixtures/transcripts/dbgeng/query-commands-av-write-minidump.txt):
//     Information from resource tables:
const RESOURCE_HEADING_RE = /^\s{2,}Information from resource tables:\s*$/;
// `Unloaded modules:` starts the list of unloaded modules.
const UNLOADED_RE = /^\s*Unloaded modules:\s*$/;
// winedbg `info share` (winedbg 8.0, captured in test/parsers/fixtures/winedbg):
//   Module  Address                                 Debug info      Name (12 modules)
//   PE      0000000140000000-0000000140041000       Dwarf-4-5       av
//   ELF     000000007d000000-000000007d005000       Deferred        <wine-loader>
// Older Wine nests PE modules under their ELF host with `  \-PE`.
const WINE_HEADER_RE = /^\s*Module\s+Address\s+Debug info\s+Name\b/;
const WINE_ROW_RE =
  /^\s*(?:\\-)?(PE|ELF|DLL|NE|VIRTUAL|---)\s+([0-9a-f]{1,16})-([0-9a-f]{1,16})\s+(\S{1,80})\s+(\S.{0,1000})$/i;

const DETAIL_FIELDS: Record<string, keyof ModuleEntry> = {
  'Image path': 'imagePath',
  'Image name': 'imageName',
  'File version': 'fileVersion',
  'Product version': 'productVersion',
  Timestamp: 'timestamp',
};

export function parseModules(text: string): ModulesRecord {
  const warnings = createWarningList();
  const { lines, noise } = removeSymbolNoise(splitLines(text));
  for (const n of noise) warnings.add(n);
  const modules: ModuleEntry[] = [];
  let unloaded = false;
  let last: ModuleEntry | undefined;
  for (const raw of dropEcho(lines)) {
    // Rows end with trailing spaces (lmvm transcript); the patterns expect them gone.
    const line = raw.trimEnd();
    if (line.length === 0) continue;
    if (CDB_HEADER_RE.test(line) || WINE_HEADER_RE.test(line)) continue;
    if (UNLOADED_RE.test(line)) {
      unloaded = true;
      last = undefined;
      continue;
    }
    const wine = WINE_ROW_RE.exec(line);
    if (wine) {
      last = wineModule(wine);
      modules.push(last);
      continue;
    }
    const row = CDB_ROW_RE.exec(line);
    if (row) {
      last = cdbModule(row, unloaded);
      modules.push(last);
      continue;
    }
    if (last && RESOURCE_HEADING_RE.test(line)) continue;
    const detail = last ? DETAIL_RE.exec(line) : null;
    if (last && detail?.[1] !== undefined) {
      const key = detail[1].trim();
      const value = detail[2] ?? '';
      (last.details ??= {})[key] = value;
      const field = DETAIL_FIELDS[key];
      if (field !== undefined) (last as unknown as Record<string, string>)[field] = value;
      continue;
    }
    warnings.add(unplaced(line));
  }
  return { modules, warnings: warnings.list() };
}

function cdbModule(row: RegExpExecArray, unloaded: boolean): ModuleEntry {
  const [, start = '', end = '', name = '', rest] = row;
  const entry: ModuleEntry = {
    start: normalizeHex(start) ?? start,
    end: normalizeHex(end) ?? end,
    name,
  };
  if (rest !== undefined && rest.length > 0) {
    const status = STATUS_RE.exec(rest);
    if (status) {
      entry.symbolStatus = status[1] ?? '';
      const file = (status[2] ?? '').trim();
      if (file.length > 0) entry.symbolFile = file;
    } else {
      entry.symbolStatus = rest;
    }
  }
  if (unloaded) entry.unloaded = true;
  return entry;
}

function wineModule(row: RegExpExecArray): ModuleEntry {
  const [, type = '', start = '', end = '', debugInfo = '', name = ''] = row;
  return {
    start: normalizeHex(start) ?? start,
    end: normalizeHex(end) ?? end,
    name,
    symbolStatus: debugInfo,
    moduleType: type,
  };
}

export const modulesDescriptor = defineParser({
  kind: 'modules',
  commands: [
    // lm, lmv, lmv m ntdll, lmf
    /^lm\w{0,6}(?:\s|$)/i,
    // winedbg: info share
    /^info\s+share(?:\s|$)/,
  ],
  parse: (text) => parseModules(text),
  summary: (record) => [
    `${record.modules.length} module(s)`,
    ...record.modules
      .slice(0, SUMMARY_ROWS)
      .map((m) => `${m.name} ${m.start}-${m.end}${m.fileVersion ? ` ${m.fileVersion}` : ''}`),
  ],
});
