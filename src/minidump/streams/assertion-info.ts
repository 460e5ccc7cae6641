// Breakpad's assertion stream (MD_ASSERTION_INFO_STREAM = 0x47670002): written when the process
// died in an invalid-parameter handler or a pure virtual call rather than by an exception of its
// own. Layout MDRawAssertionInfo from Breakpad's minidump_format.h
// (https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/src/google_breakpad/common/minidump_format.h):
// u16 expression[128], u16 function[128], u16 file[128] (UTF-16, NUL-terminated, 256 bytes
// each; often empty in release CRTs), u32 line, u32 type (MDAssertionInfoData: 0 unknown,
// 1 invalid parameter, 2 pure virtual call).
import { u32, wcharField } from '../bytes.js';
import type { StreamContext } from '../stream-context.js';

export interface AssertionInfo {
  expression: string;
  function: string;
  file: string;
  line: number;
  type: number;
  /** `invalid parameter`, `pure virtual call`, or `unknown` (type 0 or another value). */
  typeName: string;
}

const FIELD_CHARS = 128;
const ASSERTION_INFO_SIZE = 3 * FIELD_CHARS * 2 + 8;

const TYPE_NAMES: Record<number, string> = {
  1: 'invalid parameter',
  2: 'pure virtual call',
};

export function parseAssertionInfo(ctx: StreamContext): AssertionInfo | null {
  const { data } = ctx;
  if (data.length < ASSERTION_INFO_SIZE) {
    ctx.warn(
      `AssertionInfo: ${data.length}-byte stream is shorter than its ${ASSERTION_INFO_SIZE}-byte record`,
    );
    return null;
  }
  const type = u32(data, 3 * FIELD_CHARS * 2 + 4);
  return {
    expression: wcharField(data, 0, FIELD_CHARS),
    function: wcharField(data, FIELD_CHARS * 2, FIELD_CHARS),
    file: wcharField(data, FIELD_CHARS * 4, FIELD_CHARS),
    line: u32(data, 3 * FIELD_CHARS * 2),
    type,
    typeName: TYPE_NAMES[type] ?? 'unknown',
  };
}
