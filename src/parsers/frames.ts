// One stack frame row, as cdb prints it in k/kb/kv/kn/kc/kP output and in `!analyze -v`
// STACK_TEXT, and as winedbg prints it in `bt`. Shared by stack.ts and analyze.ts so both read
// frames the same way.
import type { Hex, StackFrame } from './records.js';
import { normalizeHex } from './text.js';

/** What the column header told us (`# ChildEBP RetAddr  Args to Child`); all false without one. */
export interface FrameColumns {
  numbered: boolean;
  args: boolean;
  callSiteOnly: boolean;
  /** False when the header has no ChildEBP/Child-SP column (`RetAddr : Args to Child : …`). */
  childSp: boolean;
}

export const NO_HEADER: FrameColumns = {
  numbered: false,
  args: false,
  callSiteOnly: false,
  childSp: true,
};

// Column headers:
//    # Child-SP          RetAddr           : Args to Child                                                           : Call Site
//   ChildEBP RetAddr  Args to Child
//    # Call Site
//   RetAddr           : Args to Child                                                           : Call Site
const HEADER_RE = /^\s*(#\s+)?(?:ChildEBP|Child-SP|Call Site|RetAddr)\b/;

/** Reads a column header line, or null when `line` is not one. */
export function readFrameHeader(line: string): FrameColumns | null {
  const match = HEADER_RE.exec(line);
  if (!match) return null;
  return {
    numbered: match[1] !== undefined,
    args: line.includes('Args to Child'),
    callSiteOnly: /^\s*#?\s*Call Site\s*$/.test(line),
    childSp: /Child(?:EBP|-SP)/.test(line),
  };
}

// A frame number: `00 `, `1a `, `0a ` (hex, two digits until 256 frames).
const FRAME_NUMBER_RE = /^([0-9a-f]{2,4})\s+/i;
// A stack address column: x86 `0029fe70`, x64 `000000c8`2647f708` or `000000c42647f708`.
const ADDRESS_RE = /^([0-9a-f]{8}(?:`[0-9a-f]{8})?|[0-9a-f]{16})(?:\s+|$)/i;
// `01 (Inline Function) --------`-------- js_dbg!js::gc::Cell::isTenured+0x5 [...]`
// `(Inline Function) : --------`-------- --------`-------- … : js_dbg!JSObject::zone+0xd` (kb, no Child-SP)
const INLINE_RE = /^\(Inline Function\)\s+(?:-{8}(?:`-{8})?\s+)?/;
// x64 kv/STACK_TEXT args between colons: `: 00000000`00000000 00000000`777d5468 … : ntdll!…`
const COLON_ARGS_RE = /^:\s+((?:[0-9a-f`-]+\s+){0,8}):\s+/i;
// `[d:\nttest\base\testsrc\kernel\rtl\pageheap\pheap-buggy.cxx @ 184]` at the end of a row.
const SOURCE_RE = / \[([^[\]]{1,1000} @ \d+)\]$/;
// `(FPO: [0,0,0])`, `(FPO: [Non-Fpo])`, `(CONV: stdcall)` annotations kv adds.
const ANNOTATION_RE = / \((?:FPO: \[[^\]]{0,40}\]|CONV: \w{1,20})\)/g;

/**
 * Splits a call site of the `module!function+0xoff` shape. Also reads `module+0xoff` (no symbols)
 * and old NTSD offsets without `0x` (`pheap-buggy!TestCorruptAfterEnd+1f`).
 */
export function splitCallSite(
  callSite: string,
): Pick<StackFrame, 'module' | 'function' | 'offset'> {
  const out: Pick<StackFrame, 'module' | 'function' | 'offset'> = {};
  if (/^0x[0-9a-f`]+$/i.test(callSite)) return out; // a raw address: nothing to split
  const bang = callSite.indexOf('!');
  // Module names never contain spaces or parentheses; `foo(int a = 1)!x` is not a module split.
  const moduleEnd = bang > 0 && !/[\s(]/.test(callSite.slice(0, bang)) ? bang : -1;
  let rest = callSite;
  if (moduleEnd > 0) {
    out.module = callSite.slice(0, moduleEnd);
    rest = callSite.slice(moduleEnd + 1);
  }
  // The offset is the last `+0x…` (or `+1f`) at the very end.
  const offset = /\+(0x[0-9a-f`]+|[0-9a-f]+)$/i.exec(rest);
  if (offset?.[1] !== undefined) {
    const hex = normalizeHex(offset[1]);
    if (hex !== null) {
      out.offset = hex;
      rest = rest.slice(0, offset.index);
    }
  }
  if (moduleEnd < 0) {
    // `vssdk_full+0x306c`: no `!`, so the part before the offset is the module.
    if (out.offset !== undefined && /^[\w.-]+$/.test(rest)) out.module = rest;
    else if (out.offset === undefined) return {};
    return out;
  }
  if (rest.trim().length > 0) out.function = rest.trim();
  return out;
}

function hexOrUndefined(raw: string | undefined): Hex | undefined {
  if (raw === undefined) return undefined;
  return normalizeHex(raw) ?? undefined;
}

/**
 * Reads one cdb frame row. Returns null when the line is not a frame (a header, a notice, `.....`).
 * Without a header the shape is inferred: a 2–4 digit first column is a frame number (stack
 * addresses have 8 or 16 digits), and up to two address columns come next.
 */
export function parseCdbFrameRow(line: string, columns: FrameColumns): StackFrame | null {
  let rest = line.trim();
  if (rest.length === 0) return null;
  const frame: StackFrame = { callSite: '' };
  const number = FRAME_NUMBER_RE.exec(rest);
  if (number?.[1] !== undefined) {
    frame.frameNumber = Number.parseInt(number[1], 16);
    rest = rest.slice(number[0].length);
  }
  const inline = INLINE_RE.exec(rest);
  if (inline) {
    frame.inline = true;
    rest = rest.slice(inline[0].length);
    const colon = COLON_ARGS_RE.exec(rest);
    if (colon) rest = rest.slice(colon[0].length); // the dashed args of an inline frame
  } else if (!columns.callSiteOnly) {
    const addresses: string[] = [];
    for (let i = 0; i < 2; i++) {
      const address = ADDRESS_RE.exec(rest);
      if (!address?.[1]) break;
      addresses.push(address[1]);
      rest = rest.slice(address[0].length);
    }
    // Without a Child-SP column the one address is the return address.
    if (!columns.childSp) addresses.unshift('');
    const childSp = addresses[0] === '' ? undefined : hexOrUndefined(addresses[0]);
    const returnAddress = hexOrUndefined(addresses[1]);
    if (childSp !== undefined) frame.childSp = childSp;
    if (returnAddress !== undefined) frame.returnAddress = returnAddress;
    rest = readArgs(rest, columns, frame, addresses.length);
  }
  // Single-space anchors (not `\s+`) keep these scans linear on a line of a million spaces.
  rest = rest.trim();
  const source = SOURCE_RE.exec(rest);
  if (source?.[1] !== undefined) {
    frame.source = source[1];
    rest = rest.slice(0, source.index).trimEnd();
  }
  rest = rest.replace(ANNOTATION_RE, '').trim();
  if (rest.length === 0) return null;
  // A row is a frame when it had a number or stack columns; bare text is not.
  if (
    frame.frameNumber === undefined &&
    frame.childSp === undefined &&
    frame.returnAddress === undefined &&
    frame.inline !== true
  )
    return null;
  // One address column without a return address is a disassembly line (`00007ff8`06ab1204 c3
  // ret`), not a frame: every k variant with stack columns prints both.
  if (frame.childSp !== undefined && frame.returnAddress === undefined) return null;
  frame.callSite = rest;
  Object.assign(frame, splitCallSite(rest));
  return frame;
}

/** Consumes the `Args to Child` columns, x86 (three plain columns) or x64 (between colons). */
function readArgs(
  rest: string,
  columns: FrameColumns,
  frame: StackFrame,
  addressCount: number,
): string {
  const colon = COLON_ARGS_RE.exec(rest);
  if (colon) {
    const args = (colon[1] ?? '').trim().split(/\s+/).filter(Boolean);
    frame.args = args.map((a) => normalizeHex(a) ?? a);
    return rest.slice(colon[0].length);
  }
  if (addressCount < 2) return rest;
  // x86 kb/kv and `!analyze` STACK_TEXT print three argument columns. Without a header, take
  // them only when a call site still follows, so `0029fe70 0029feb8 0xbad4` keeps its call site.
  const max = columns.args ? 3 : 4;
  const args: string[] = [];
  let cursor = rest;
  while (args.length < max) {
    const arg = /^([0-9a-f]{8}(?:`[0-9a-f]{8})?)\s+(?=\S)/i.exec(cursor);
    if (!arg?.[1]) break;
    args.push(arg[1]);
    cursor = cursor.slice(arg[0].length);
  }
  if (!columns.args && args.length < 3) return rest;
  if (args.length === 0) return rest;
  frame.args = args.map((a) => normalizeHex(a) ?? a);
  return cursor;
}

// winedbg `bt` rows (winedbg 8.0, captured in test/parsers/fixtures/winedbg):
//   =>0 0x0000014000154a crash_here+0x1a(mode=0x1) [Z:\work\main\test\targets\av.c:9] in av (0x00000000c812e0)
//     2 0x000001400013ae in av (+0x13ae) (0x00000000c812e0)
//   =>0 0000000000000000 (0000000000000000)
const WINE_FRAME_RE = /^(=>|\s{1,3})(\d{1,6}) (?:0x)?([0-9a-f]{1,16}) (.{0,4000})$/i;
// The trailing frame address `(0x00000000c812e0)` / `(0000000000000000)`.
const WINE_FRAME_ADDRESS_RE = /\s?\(((?:0x)?[0-9a-f]{1,16})\)$/i;
// `in av (+0x13ae)` / ` in kernel32` before the frame address.
const WINE_MODULE_RE = /(?:^|\s)in (\S{1,200})(?: \(\+(0x[0-9a-f]+)\))?$/i;
// `[Z:\work\main\test\targets\av.c:9]` after the function.
const WINE_SOURCE_RE = /\s\[([^[\]]{1,1000}:\d+)\]$/;

/** Reads one winedbg `bt` row, or null when the line is not one. */
export function parseWinedbgFrameRow(line: string): StackFrame | null {
  const match = WINE_FRAME_RE.exec(line);
  if (!match) return null;
  const [, , number = '0', ip = '', tail = ''] = match;
  let rest = tail.trim();
  const frame: StackFrame = { frameNumber: Number.parseInt(number, 10), callSite: '' };
  const ipHex = normalizeHex(ip);
  if (ipHex !== null) frame.ip = ipHex;
  const fp = WINE_FRAME_ADDRESS_RE.exec(rest);
  if (fp?.[1] !== undefined) {
    const hex = normalizeHex(fp[1]);
    if (hex !== null) frame.framePointer = hex;
    rest = rest.slice(0, fp.index).trim();
  }
  let moduleName: string | undefined;
  let moduleOffset: string | undefined;
  const mod = WINE_MODULE_RE.exec(rest);
  if (mod?.[1] !== undefined) {
    moduleName = mod[1];
    moduleOffset = mod[2];
    rest = rest.slice(0, mod.index).trim();
  }
  const source = WINE_SOURCE_RE.exec(` ${rest}`);
  if (source?.[1] !== undefined) {
    frame.source = source[1];
    rest = ` ${rest}`.slice(0, source.index).trim();
  }
  // `crash_here+0x1a(mode=0x1)`: function, offset, then the arguments in parentheses.
  let fn: string | undefined;
  let offset: string | undefined;
  if (rest.length > 0) {
    const withOffset = /^(.+?)\+(0x[0-9a-f]+)(?:\(.*\))?$/i.exec(rest);
    if (withOffset) {
      fn = withOffset[1];
      offset = withOffset[2];
    } else {
      const paren = rest.indexOf('(');
      fn = paren > 0 ? rest.slice(0, paren) : rest;
    }
  }
  if (moduleName !== undefined) frame.module = moduleName;
  if (fn !== undefined) frame.function = fn;
  const off = normalizeHex(offset ?? moduleOffset ?? '');
  if (off !== null) frame.offset = off;
  // The call site in cdb's shape, so signatures read the same for both debuggers.
  if (fn !== undefined) {
    frame.callSite = `${moduleName !== undefined ? `${moduleName}!` : ''}${fn}${off !== null ? `+${off}` : ''}`;
  } else if (moduleName !== undefined) {
    frame.callSite = `${moduleName}${off !== null ? `+${off}` : ''}`;
  } else {
    frame.callSite = ipHex ?? ip;
  }
  return frame;
}
