// `!analyze -v`: the key fields and the STACK_TEXT frames. Field lines are `KEY:  value`; some
// keys (FAULTING_IP, STACK_TEXT, EXCEPTION_RECORD, FAULTING_SOURCE_CODE) are followed by a block
// that runs to the next blank line or the next key.
import { defineParser, SUMMARY_ROWS } from './descriptor.js';
import { readLine as readExrLine } from './exception-record.js';
import { NO_HEADER, parseCdbFrameRow, readFrameHeader } from './frames.js';
import type { FrameColumns } from './frames.js';
import { dropEcho } from './prompt.js';
import { normalizeCode, normalizeHex, removeSymbolNoise, splitLines } from './text.js';
import { createWarningList } from './warning-list.js';
import type { ExceptionRecordRecord, Hex, RecordBase, StackFrame } from './records.js';
import { dict } from '../common/dict.js';

export interface AnalyzeRecord extends RecordBase {
  exceptionCode?: Hex;
  processName?: string;
  failureBucketId?: string;
  bucketId?: string;
  symbolName?: string;
  moduleName?: string;
  imageName?: string;
  faultingFrame?: string;
  stackFrames: StackFrame[];
  defaultBucketId?: string;
  primaryProblemClass?: string;
  bugcheckStr?: string;
  followupName?: string;
  faultingThread?: Hex;
  /** The `.exr` block printed under EXCEPTION_RECORD. */
  exceptionRecord?: ExceptionRecordRecord;
  /** Every one-line `KEY:  value` field, as printed. */
  fields?: Record<string, string>;
}

// PROCESS_NAME:  MyApp.exe
// FAILURE_BUCKET_ID:  INVALID_POINTER_READ_FILL_PATTERN_2b2b2b2b_c0000005_js-dbg-32-….exe!js::gc::TenuredCell::arena
// STACK_TEXT:
const KEY_RE = /^([A-Z][A-Z0-9_]{1,60}):(?:\s+(\S.{0,4000}))?$/;
// EXCEPTION_CODE: (NTSTATUS) 0xc0000005 - The instruction at 0x%08lx referenced memory at …
// EXCEPTION_CODE_STR:  c0000005
const NTSTATUS_RE = /^\((?:NTSTATUS|HRESULT|Win32)\) (0x[0-9a-f]{1,8})\b/i;

/** How the analysis of a key's value continues on the following lines. */
type Block = 'none' | 'stack' | 'exr' | 'faultingIp' | 'skip';

const BLOCKS: Record<string, Block> = {
  STACK_TEXT: 'stack',
  EXCEPTION_RECORD: 'exr',
  FAULTING_IP: 'faultingIp',
};

export function parseAnalyze(text: string): AnalyzeRecord {
  const warnings = createWarningList();
  const { lines, noise } = removeSymbolNoise(splitLines(text));
  for (const n of noise) warnings.add(n);
  const record: AnalyzeRecord = { stackFrames: [], fields: {}, warnings: [] };
  const fields: Record<string, string> = dict();
  let block: Block = 'none';
  let columns: FrameColumns = NO_HEADER;
  let faultingIpFirstLine: string | undefined;
  let exr: ExceptionRecordRecord | undefined;
  for (const raw of dropEcho(lines)) {
    const line = raw.trimEnd();
    if (line.length === 0) {
      // A blank line ends a block, except the one cdb prints right after `STACK_TEXT:` in some
      // versions before any frame.
      if (block !== 'stack' || record.stackFrames.length > 0) block = 'none';
      continue;
    }
    const key = KEY_RE.exec(line);
    if (key?.[1] !== undefined) {
      const name = key[1];
      const value = key[2];
      if (value !== undefined && !(name in fields)) fields[name] = value;
      block = BLOCKS[name] ?? (value === undefined ? 'skip' : 'none');
      if (block === 'exr')
        exr ??= { address: null, code: null, flags: null, parameters: [], warnings: [] };
      continue;
    }
    switch (block) {
      case 'stack': {
        const header = readFrameHeader(line);
        if (header) {
          columns = header;
          break;
        }
        const frame = parseCdbFrameRow(line, columns);
        if (frame) record.stackFrames.push(frame);
        else warnings.add(`STACK_TEXT line not read: ${line.trim()}`);
        break;
      }
      case 'exr':
        if (exr && !readExrLine(exr, line)) block = 'none';
        break;
      case 'faultingIp':
        // The first line is the symbol (`ntdll!PropertyLengthAsVariant+73`), then disassembly.
        faultingIpFirstLine ??= line.trim();
        block = 'skip';
        break;
      default:
        // Banners, `Followup: …`, free text under ADDITIONAL_DEBUG_TEXT and friends: kept out
        // of warnings, since !analyze prints plenty of prose that is not a field.
        break;
    }
  }
  fillRecord(record, fields, exr, faultingIpFirstLine);
  record.fields = fields;
  record.warnings = warnings.list();
  return record;
}

function fillRecord(
  record: AnalyzeRecord,
  fields: Record<string, string>,
  exr: ExceptionRecordRecord | undefined,
  faultingIp: string | undefined,
): void {
  const code = exceptionCode(fields, exr);
  if (code !== undefined) record.exceptionCode = code;
  const text: [keyof AnalyzeRecord, string][] = [
    ['processName', 'PROCESS_NAME'],
    ['failureBucketId', 'FAILURE_BUCKET_ID'],
    ['bucketId', 'BUCKET_ID'],
    ['symbolName', 'SYMBOL_NAME'],
    ['moduleName', 'MODULE_NAME'],
    ['imageName', 'IMAGE_NAME'],
    ['defaultBucketId', 'DEFAULT_BUCKET_ID'],
    ['primaryProblemClass', 'PRIMARY_PROBLEM_CLASS'],
    ['bugcheckStr', 'BUGCHECK_STR'],
    ['followupName', 'FOLLOWUP_NAME'],
  ];
  for (const [field, key] of text) {
    const value = fields[key];
    if (value !== undefined) (record as unknown as Record<string, string>)[field] = value.trim();
  }
  const thread = fields['FAULTING_THREAD'];
  const threadHex = thread === undefined ? null : normalizeHex(thread);
  if (threadHex !== null) record.faultingThread = threadHex;
  if (exr) record.exceptionRecord = exr;
  const faulting = faultingIp ?? record.stackFrames[0]?.callSite;
  if (faulting !== undefined) record.faultingFrame = faulting;
}

function exceptionCode(
  fields: Record<string, string>,
  exr: ExceptionRecordRecord | undefined,
): string | undefined {
  const str = fields['EXCEPTION_CODE_STR'];
  const fromStr = str === undefined ? null : normalizeCode(str);
  if (fromStr !== null) return fromStr;
  const ntstatus = NTSTATUS_RE.exec(fields['EXCEPTION_CODE'] ?? fields['ERROR_CODE'] ?? '');
  const fromStatus = ntstatus?.[1] === undefined ? null : normalizeCode(ntstatus[1]);
  if (fromStatus !== null) return fromStatus;
  return exr?.code ?? undefined;
}

export const analyzeDescriptor = defineParser({
  kind: 'analyze',
  commands: [
    // !analyze -v, !analyze -v -hang
    /^!analyze\b/i,
  ],
  parse: (text) => parseAnalyze(text),
  summary: (record) => [
    `exception ${record.exceptionCode ?? '?'} in ${record.processName ?? '?'}`,
    `bucket ${record.failureBucketId ?? record.bucketId ?? '?'}`,
    ...record.stackFrames.slice(0, SUMMARY_ROWS).map((f, i) => `#${i} ${f.callSite}`),
  ],
});
