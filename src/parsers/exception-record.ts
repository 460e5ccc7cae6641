// `.exr -1` / `.exr ADDR`: the exception record (also printed inside `!analyze -v`).
import { defineParser } from './descriptor.js';
import { dropEcho } from './prompt.js';
import { isNoiseLine, normalizeCode, normalizeHex, splitLines } from './text.js';
import { createWarningList, unplaced } from './warning-list.js';
import type { Hex, RecordBase } from './records.js';

export interface ExceptionRecordRecord extends RecordBase {
  address: Hex | null;
  code: Hex | null;
  flags: Hex | null;
  parameters: Hex[];
  description?: string;
  /** The symbol cdb prints after ExceptionAddress: `(KERNELBASE!RaiseException+0x00000062)`. */
  addressSymbol?: string;
  numberParameters?: number;
  /** `Attempt to write to address 0000000000000000` (access violations). */
  accessType?: 'read' | 'write' | 'execute';
  accessAddress?: Hex;
  /** C++ EH records: the `Type            : class HrException` lines, most derived first. */
  cxxTypes?: string[];
}

// ExceptionAddress: 778a4bb2 (KERNELBASE!RaiseException+0x00000062)
// ExceptionAddress: 000007fe9b17f963
const ADDRESS_RE = /^\s*ExceptionAddress: ([0-9a-f`]{1,17})(?: \((.{1,1000})\))?\s*$/i;
//    ExceptionCode: e06d7363 (C++ EH exception)
const CODE_RE = /^\s*ExceptionCode: ([0-9a-f]{1,8})(?: \((.{1,200})\))?\s*$/i;
//   ExceptionFlags: 00000001
const FLAGS_RE = /^\s*ExceptionFlags: ([0-9a-f]{1,8})\s*$/i;
// NumberParameters: 3
const COUNT_RE = /^\s*NumberParameters: (\d{1,3})\s*$/;
//    Parameter[0]: 19930520
const PARAMETER_RE = /^\s*Parameter\[(\d{1,3})\]: ([0-9a-f`]{1,17})\s*$/i;
// Attempt to write to address 0000000000000000
const ATTEMPT_RE =
  /^\s*Attempt to (read from|write to|execute non-executable) address ([0-9a-f`]{1,17})/i;
//   Type            : class HrException
const CXX_TYPE_RE = /^\s*Type\s+: (.{1,500})$/;
//   pExceptionObject: 0055f0c4   /   _s_ThrowInfo    : 013bd278
const CXX_DETAIL_RE = /^\s*(?:pExceptionObject|_s_ThrowInfo)\s*: /;
// `.exr` on something that is not an exception record (pycdb): "... not an exception ..."
const NOT_EXCEPTION_RE = /not an exception/i;

export function parseExceptionRecord(text: string): ExceptionRecordRecord {
  const warnings = createWarningList();
  const record: ExceptionRecordRecord = {
    address: null,
    code: null,
    flags: null,
    parameters: [],
    warnings: [],
  };
  for (const line of dropEcho(splitLines(text).map((l) => l.trimEnd()))) {
    if (line.trim().length === 0) continue;
    if (readLine(record, line)) continue;
    // Symbol-load noise the real engine prints before the record when it cannot find the image
    // (test/fixtures/transcripts/dbgeng/analyze-av-write-minidump.txt):
    //   *** WARNING: Unable to verify timestamp for av.exe
    if (NOT_EXCEPTION_RE.test(line) || isNoiseLine(line)) {
      warnings.add(line.trim());
      continue;
    }
    warnings.add(unplaced(line));
  }
  if (record.numberParameters !== undefined && record.numberParameters !== record.parameters.length)
    warnings.add(
      `NumberParameters is ${record.numberParameters} but ${record.parameters.length} parameters were printed`,
    );
  record.warnings = warnings.list();
  return record;
}

/** Applies one `.exr` line to `record`; false when the line is not part of a record. */
export function readLine(record: ExceptionRecordRecord, line: string): boolean {
  const address = ADDRESS_RE.exec(line);
  if (address) {
    record.address = normalizeHex(address[1] ?? '');
    if (address[2] !== undefined) record.addressSymbol = address[2];
    return true;
  }
  const code = CODE_RE.exec(line);
  if (code) {
    record.code = normalizeCode(code[1] ?? '');
    if (code[2] !== undefined) record.description = code[2];
    return true;
  }
  const flags = FLAGS_RE.exec(line);
  if (flags) {
    record.flags = normalizeCode(flags[1] ?? '');
    return true;
  }
  const count = COUNT_RE.exec(line);
  if (count) {
    record.numberParameters = Number.parseInt(count[1] ?? '0', 10);
    return true;
  }
  const parameter = PARAMETER_RE.exec(line);
  if (parameter) {
    const value = normalizeHex(parameter[2] ?? '');
    if (value !== null) record.parameters.push(value);
    return true;
  }
  const attempt = ATTEMPT_RE.exec(line);
  if (attempt) {
    const verb = (attempt[1] ?? '').toLowerCase();
    record.accessType = verb.startsWith('read')
      ? 'read'
      : verb.startsWith('write')
        ? 'write'
        : 'execute';
    const at = normalizeHex(attempt[2] ?? '');
    if (at !== null) record.accessAddress = at;
    return true;
  }
  const type = CXX_TYPE_RE.exec(line);
  if (type?.[1] !== undefined) {
    (record.cxxTypes ??= []).push(type[1]);
    return true;
  }
  return CXX_DETAIL_RE.test(line);
}

export const exceptionRecordDescriptor = defineParser({
  kind: 'exceptionRecord',
  commands: [
    // .exr -1, .exr 0x0055eb18
    /^\.exr(?:\s|$)/i,
  ],
  parse: (text) => parseExceptionRecord(text),
  summary: (record) => [
    `${record.code ?? '?'} ${record.description ?? ''} at ${record.address ?? '?'}`,
    `parameters: ${record.parameters.join(' ') || 'none'}`,
  ],
});
