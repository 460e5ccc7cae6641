// Exception codes decoded to names a triager recognises (ntstatus.h, and the names winedbg
// prints), using the parameters where they say more: an access violation's kind and address, a
// fail-fast code, the HRESULT of a CLR exception.

const NAMES = new Map<number, string>([
  [0x80000001, 'Guard page violation'],
  [0x80000002, 'Datatype misalignment'],
  [0x80000003, 'Breakpoint'],
  [0x80000004, 'Single step'],
  [0x80000026, 'Long jump'],
  [0x80000029, 'Unwind consolidate'],
  [0x4000001f, 'WOW64 breakpoint'],
  [0x4000001e, 'WOW64 single step'],
  [0x40000015, 'Fatal application exit'],
  [0x40010005, 'Control-C'],
  [0x40010008, 'Control-Break'],
  [0x40010006, 'Debug output (OutputDebugStringA)'],
  [0x4001000a, 'Debug output (OutputDebugStringW)'],
  [0x406d1388, 'Set thread name (MS_VC_EXCEPTION)'],
  [0xc0000005, 'Access violation'],
  [0xc0000006, 'In-page I/O error'],
  [0xc0000008, 'Invalid handle'],
  [0xc000000d, 'Invalid parameter'],
  [0xc0000017, 'Out of memory (no memory)'],
  [0xc000001d, 'Illegal instruction'],
  [0xc0000025, 'Noncontinuable exception'],
  [0xc0000026, 'Invalid exception disposition'],
  [0xc000008c, 'Array bounds exceeded'],
  [0xc000008d, 'Floating-point denormal operand'],
  [0xc000008e, 'Floating-point divide by zero'],
  [0xc000008f, 'Floating-point inexact result'],
  [0xc0000090, 'Floating-point invalid operation'],
  [0xc0000091, 'Floating-point overflow'],
  [0xc0000092, 'Floating-point stack check'],
  [0xc0000093, 'Floating-point underflow'],
  [0xc0000094, 'Integer divide by zero'],
  [0xc0000095, 'Integer overflow'],
  [0xc0000096, 'Privileged instruction'],
  [0xc00000fd, 'Stack overflow'],
  [0xc0000135, 'DLL not found'],
  [0xc0000138, 'Ordinal not found'],
  [0xc0000139, 'Entry point not found'],
  [0xc0000142, 'DLL initialization failed'],
  [0xc0000194, 'Possible deadlock'],
  [0xc00002b4, 'Multiple floating-point faults'],
  [0xc00002b5, 'Multiple floating-point traps'],
  [0xc00002c9, 'Register NaT consumption'],
  [0xc0000374, 'Heap corruption'],
  [0xc0000409, 'Fail-fast exception (stack buffer overrun / __fastfail)'],
  [0xc0000417, 'Invalid CRT parameter'],
  [0xc0000420, 'Assertion failure'],
  [0xc000041d, 'Fatal user callback exception'],
  [0xc0000602, 'Fail-fast exception'],
  [0xc06d007e, 'Delay-load module not found'],
  [0xc06d007f, 'Delay-load procedure not found'],
  [0xe0434352, 'CLR exception (.NET)'],
  // clrjit's fatal() (dotnet/runtime src/coreclr/jit/error.cpp), caught by the JIT's own filter;
  // a debugger sees it as a first chance (test/watch/watch-clr-winedbg.test.ts).
  [0x02345678, '.NET JIT internal exception (FATAL_JIT_EXCEPTION, handled by clrjit)'],
  [0xe0434f4d, 'CLR exception (.NET 1.x/2.0 "COM+")'],
  [0xe06d7363, 'C++ exception (MSVC)'],
  [0x20474343, 'C++ exception (GCC/mingw)'],
]);

/** FAST_FAIL_* codes passed to __fastfail (winnt.h), the first parameter of 0xc0000409. */
const FAST_FAIL = new Map<number, string>([
  [0, 'LEGACY_GS_VIOLATION'],
  [1, 'VTGUARD_CHECK_FAILURE'],
  [2, 'STACK_COOKIE_CHECK_FAILURE'],
  [3, 'CORRUPT_LIST_ENTRY'],
  [4, 'INCORRECT_STACK'],
  [5, 'INVALID_ARG'],
  [6, 'GS_COOKIE_INIT'],
  [7, 'FATAL_APP_EXIT'],
  [8, 'RANGE_CHECK_FAILURE'],
  [9, 'UNSAFE_REGISTRY_ACCESS'],
  [10, 'GUARD_ICALL_CHECK_FAILURE'],
  [11, 'GUARD_WRITE_CHECK_FAILURE'],
  [12, 'INVALID_FIBER_SWITCH'],
  [13, 'INVALID_SET_OF_CONTEXT'],
  [14, 'INVALID_REFERENCE_COUNT'],
  [18, 'INVALID_JUMP_BUFFER'],
  [19, 'MRDATA_MODIFIED'],
  [20, 'CERTIFICATION_FAILURE'],
  [21, 'INVALID_EXCEPTION_CHAIN'],
  [22, 'CRYPTO_LIBRARY'],
  [23, 'INVALID_CALL_IN_DLL_CALLOUT'],
  [24, 'INVALID_IMAGE_BASE'],
  [25, 'DLOAD_PROTECTION_FAILURE'],
  [26, 'UNSAFE_EXTENSION_CALL'],
  [27, 'DEPRECATED_SERVICE_INVOKED'],
  [28, 'INVALID_BUFFER_ACCESS'],
  [29, 'INVALID_BALANCED_TREE'],
  [30, 'INVALID_NEXT_THREAD'],
]);

export type AccessKind = 'read' | 'write' | 'execute';

/** For an access violation / in-page error: what was attempted, and where. */
export function accessViolationDetail(
  code: number,
  parameters: readonly bigint[] = [],
): { access: AccessKind | undefined; address: bigint } | undefined {
  if (code !== 0xc0000005 && code !== 0xc0000006) return undefined;
  const [kind, address] = parameters;
  if (kind === undefined || address === undefined) return undefined;
  const access = kind === 0n ? 'read' : kind === 1n ? 'write' : kind === 8n ? 'execute' : undefined;
  return { access, address };
}

/** Parses `0xc0000005`, `c0000005` or a number into an unsigned 32-bit code. */
export function parseExceptionCode(code: number | string): number | undefined {
  if (typeof code === 'number') return Number.isInteger(code) ? code >>> 0 : undefined;
  // Sample inputs: "0xc0000005", "C0000005", "0xE06D7363"
  const match = /^(?:0x)?([0-9a-f]{1,8})$/i.exec(code.trim());
  return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16) >>> 0;
}

/**
 * A readable name for an exception code, e.g. `Access violation writing 0x10`,
 * `Fail-fast exception (stack buffer overrun / __fastfail): FAST_FAIL_FATAL_APP_EXIT (7)`,
 * `CLR exception (.NET), HRESULT 0x80131500`, or `Unknown exception 0xe0000001`.
 */
export function exceptionName(code: number | string, parameters: readonly bigint[] = []): string {
  const value = parseExceptionCode(code);
  if (value === undefined) return `Unknown exception ${String(code)}`;
  const base = NAMES.get(value);
  const av = accessViolationDetail(value, parameters);
  if (av && base !== undefined) {
    const verb =
      av.access === 'read'
        ? 'reading'
        : av.access === 'write'
          ? 'writing'
          : av.access === 'execute'
            ? 'executing'
            : 'accessing';
    const dep = av.access === 'execute' ? ' (DEP)' : '';
    return `${base} ${verb} 0x${av.address.toString(16)}${dep}`;
  }
  const first = parameters[0];
  if ((value === 0xc0000409 || value === 0xc0000602) && base !== undefined && first !== undefined) {
    const n = Number(first & 0xffffffffn);
    const name = FAST_FAIL.get(n);
    return `${base}: ${name === undefined ? 'code' : `FAST_FAIL_${name}`} (${n})`;
  }
  if ((value === 0xe0434352 || value === 0xe0434f4d) && base !== undefined && first !== undefined) {
    return `${base}, HRESULT 0x${(Number(first & 0xffffffffn) >>> 0).toString(16).padStart(8, '0')}`;
  }
  if (base !== undefined) return base;
  const hex = `0x${value.toString(16).padStart(8, '0')}`;
  // Bit 29 set marks a customer (application-defined) code, e.g. RaiseException(0xe0000001).
  return (value & 0x20000000) !== 0 ? `Application exception ${hex}` : `Unknown exception ${hex}`;
}
