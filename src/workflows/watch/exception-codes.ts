// Exception codes by the names users type (`av`, `clr`, `stackoverflow`) and the classes the
// watch options select (`--clr`, `--av`, `--cpp`). Codes follow records.md: `0x` + 8 hex digits.

/** CLR exceptions: .NET 4+/Core (`e0434352`, the code every managed throw is raised with: see the CLR event transcripts the tests replay) and the .NET 1.x/2.0 "COM+" code. */
export const CLR_CODES: readonly string[] = ['0xe0434352', '0xe0434f4d'];
export const AV_CODE = '0xc0000005';
/** MSVC C++ EH (`e06d7363`) and a mingw g++ throw (`RaiseException(0x20474343 'GCC ')`: libgcc's unwinder raises it, seen with test/targets/ built by mingw). */
export const CPP_CODES: readonly string[] = ['0xe06d7363', '0x20474343'];

/** Names accepted wherever a code is (`--code av`, `--include code:stackoverflow`). */
const CODE_NAMES: Readonly<Record<string, string>> = {
  av: AV_CODE,
  access_violation: AV_CODE,
  clr: '0xe0434352',
  complus: '0xe0434f4d',
  jit: '0x02345678',
  cpp: '0xe06d7363',
  eh: '0xe06d7363',
  gcc: '0x20474343',
  breakpoint: '0x80000003',
  bpe: '0x80000003',
  single_step: '0x80000004',
  stack_overflow: '0xc00000fd',
  stackoverflow: '0xc00000fd',
  sov: '0xc00000fd',
  divide_by_zero: '0xc0000094',
  dz: '0xc0000094',
  integer_overflow: '0xc0000095',
  illegal_instruction: '0xc000001d',
  privileged_instruction: '0xc0000096',
  in_page_error: '0xc0000006',
  guard_page: '0x80000001',
  heap_corruption: '0xc0000374',
  stack_buffer_overrun: '0xc0000409',
  fail_fast: '0xc0000409',
  invalid_handle: '0xc0000008',
};

// `0xC0000005`, `c0000005`, `E0434352`
const HEX_CODE_RE = /^(?:0x)?([0-9a-f]{1,8})$/i;

/** `0x` + 8 lower-case hex digits, or null when `text` is neither a code nor a known name. */
export function normalizeExceptionCode(text: string): string | null {
  const trimmed = text.trim();
  const named = CODE_NAMES[trimmed.toLowerCase().replace(/[-\s]/g, '_')];
  if (named !== undefined) return named;
  const match = HEX_CODE_RE.exec(trimmed);
  if (match?.[1] === undefined) return null;
  return `0x${match[1].toLowerCase().padStart(8, '0')}`;
}

/** A short readable name for a code (the first name in the table), for file names and text. */
export function exceptionCodeName(code: string): string | null {
  if (CLR_CODES.includes(code)) return 'CLR';
  for (const [name, value] of Object.entries(CODE_NAMES)) {
    if (value === code) return name.toUpperCase();
  }
  return null;
}

export function isClrCode(code: string | null | undefined): boolean {
  return code != null && CLR_CODES.includes(code);
}

/** Which first-chance exceptions the user asked to stop on (second chance always stops). */
export interface ExceptionSelection {
  clr: boolean;
  av: boolean;
  cpp: boolean;
  codes: readonly string[];
  allFirstChance: boolean;
}

/** True when a stop with this code and chance is one the user selected. */
export function isSelected(
  selection: ExceptionSelection,
  code: string | null | undefined,
  chance: 'first' | 'second' | null | undefined,
): boolean {
  if (chance === 'second') return true;
  if (selection.allFirstChance) return true;
  if (code == null) return false;
  if (selection.clr && CLR_CODES.includes(code)) return true;
  if (selection.av && code === AV_CODE) return true;
  if (selection.cpp && CPP_CODES.includes(code)) return true;
  return selection.codes.includes(code);
}
