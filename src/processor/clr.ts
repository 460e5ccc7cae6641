// The CLR as a dump shows it without any debugger extension: which runtime module the process
// loaded, and what a CLR exception's record says. A triager with no SOS (Linux, winedbg, the builtin
// engine) still learns "this is .NET 10 and the exception's HRESULT is COR_E_INVALIDOPERATION".
//
// The record layout, from the runtime's source (dotnet/runtime src/coreclr/vm/excep.cpp,
// MarkAsThrownByUs; src/coreclr/vm/exceptionhandling.cpp, DispatchManagedException and
// FirstChanceExceptionNotification):
// - a managed throw raised the classic way carries 5 parameters: [0] the exception's HRESULT
//   (sign-extended to 64 bits: 0xffffffff80070057), [1..3] 0, [4] the base address of the runtime
//   module that raised it. Measured under Wine with our test program (test/targets/dotnet): .NET 8
//   first chances and .NET 10's unhandled exception both look like this.
// - .NET 9+ dispatches managed exceptions in managed code and, when a native debugger is attached,
//   raises `RaiseException(0xE0434352, 0, 0, NULL)` only to notify it: no parameters, no HRESULT.
import { hex } from '../minidump/bytes.js';

export type ClrRuntimeKind = 'coreclr' | 'clr' | 'mscorwks';

/** The runtime module a dump's module list shows. */
export interface InspectedClr {
  /** `coreclr`: .NET Core / .NET 5+; `clr`: .NET Framework 4.x; `mscorwks`: .NET Framework 2.0-3.5. */
  runtime: ClrRuntimeKind;
  /** As in the module list: `coreclr.dll`. */
  module: string;
  base: string;
  path: string;
  /** The module's file version (e.g. `10.0.1226.42308`), when the dump recorded it. */
  fileVersion?: string;
}

/** What a CLR exception record (0xe0434352 / 0xe0434f4d) says beyond its code. */
export interface InspectedClrException {
  /** Parameter 0, low 32 bits: `0x80131509`. */
  hresult?: string;
  /** The HRESULT's symbolic name: `COR_E_INVALIDOPERATION`. */
  hresultName?: string;
  /** .NET exception types whose default HResult this is (a type may set another). */
  types?: string[];
  /** The module parameter 4 points at (the raising runtime), `coreclr.dll`. */
  raisedBy?: string;
  /** True for the parameterless record .NET 9+ raises to notify a native debugger. */
  notification?: boolean;
  note?: string;
}

const RUNTIME_MODULES: ReadonlyMap<string, ClrRuntimeKind> = new Map([
  ['coreclr.dll', 'coreclr'],
  ['libcoreclr.so', 'coreclr'],
  ['clr.dll', 'clr'],
  ['mscorwks.dll', 'mscorwks'],
  ['mscorsvr.dll', 'mscorwks'],
]);

/**
 * Default HResults of common .NET exceptions. Values: the HRESULTs in dotnet/runtime
 * src/coreclr/inc/corerror.xml and winerror.h, as each type's docs page states them (e.g.
 * https://learn.microsoft.com/dotnet/api/system.invalidoperationexception "uses the HRESULT
 * COR_E_INVALIDOPERATION, which has the value 0x80131509").
 */
const HRESULTS: ReadonlyMap<number, { name: string; types: string[] }> = new Map([
  [0x80131500, { name: 'COR_E_EXCEPTION', types: ['System.Exception'] }],
  [0x80131501, { name: 'COR_E_SYSTEM', types: ['System.SystemException'] }],
  [0x80131502, { name: 'COR_E_ARGUMENTOUTOFRANGE', types: ['System.ArgumentOutOfRangeException'] }],
  [0x80131503, { name: 'COR_E_ARRAYTYPEMISMATCH', types: ['System.ArrayTypeMismatchException'] }],
  [0x80131505, { name: 'COR_E_TIMEOUT', types: ['System.TimeoutException'] }],
  [0x80131508, { name: 'COR_E_INDEXOUTOFRANGE', types: ['System.IndexOutOfRangeException'] }],
  [0x80131509, { name: 'COR_E_INVALIDOPERATION', types: ['System.InvalidOperationException'] }],
  [0x80131515, { name: 'COR_E_NOTSUPPORTED', types: ['System.NotSupportedException'] }],
  [0x80131516, { name: 'COR_E_OVERFLOW', types: ['System.OverflowException'] }],
  [0x80131537, { name: 'COR_E_FORMAT', types: ['System.FormatException'] }],
  [
    0x8013153b,
    {
      name: 'COR_E_OPERATIONCANCELED',
      types: ['System.OperationCanceledException', 'System.Threading.Tasks.TaskCanceledException'],
    },
  ],
  [
    0x80131577,
    { name: 'COR_E_KEYNOTFOUND', types: ['System.Collections.Generic.KeyNotFoundException'] },
  ],
  [0x80131600, { name: 'COR_E_APPLICATION', types: ['System.ApplicationException'] }],
  [0x80131620, { name: 'COR_E_IO', types: ['System.IO.IOException'] }],
  [0x80131622, { name: 'COR_E_OBJECTDISPOSED', types: ['System.ObjectDisposedException'] }],
  [
    0x80004003,
    {
      name: 'E_POINTER',
      types: [
        'System.NullReferenceException',
        'System.ArgumentNullException',
        'System.AccessViolationException',
      ],
    },
  ],
  [0x80004002, { name: 'E_NOINTERFACE', types: ['System.InvalidCastException'] }],
  [0x80004001, { name: 'E_NOTIMPL', types: ['System.NotImplementedException'] }],
  [0x80070057, { name: 'E_INVALIDARG', types: ['System.ArgumentException'] }],
  [0x8007000e, { name: 'E_OUTOFMEMORY', types: ['System.OutOfMemoryException'] }],
  [0x80070002, { name: 'COR_E_FILENOTFOUND', types: ['System.IO.FileNotFoundException'] }],
  [
    0x80070003,
    { name: 'COR_E_DIRECTORYNOTFOUND', types: ['System.IO.DirectoryNotFoundException'] },
  ],
  [0x80070005, { name: 'E_ACCESSDENIED', types: ['System.UnauthorizedAccessException'] }],
  [0x80020012, { name: 'COR_E_DIVIDEBYZERO', types: ['System.DivideByZeroException'] }],
  [0x800703e9, { name: 'COR_E_STACKOVERFLOW', types: ['System.StackOverflowException'] }],
  [0x80070216, { name: 'COR_E_ARITHMETIC', types: ['System.ArithmeticException'] }],
]);

const CLR_CODES = new Set([0xe0434352, 0xe0434f4d]);

interface ModuleLike {
  base: bigint;
  size: number;
  name: string;
  path: string;
  fileVersion?: string;
}

/** The CLR runtime module in a module list (the first one loaded), or null for a native process. */
export function findClrRuntime(modules: readonly ModuleLike[]): InspectedClr | null {
  for (const m of modules) {
    const runtime = RUNTIME_MODULES.get(m.name.toLowerCase());
    if (runtime === undefined) continue;
    const out: InspectedClr = { runtime, module: m.name, base: hex(m.base), path: m.path };
    if (m.fileVersion !== undefined) out.fileVersion = m.fileVersion;
    return out;
  }
  return null;
}

/** The symbolic name and default .NET types of an HRESULT (`0x80131509`), when known. */
export function describeHresult(hresult: number): { name: string; types: string[] } | undefined {
  return HRESULTS.get(hresult >>> 0);
}

/** What a CLR exception record's parameters say; undefined for any other code. */
export function clrExceptionDetail(
  code: number,
  parameters: readonly bigint[],
  modules: readonly ModuleLike[],
): InspectedClrException | undefined {
  if (!CLR_CODES.has(code >>> 0)) return undefined;
  const first = parameters[0];
  if (first === undefined) {
    return {
      notification: true,
      note: 'no parameters: the first-chance notification .NET 9+ raises for a native debugger; the HRESULT is not in the record',
    };
  }
  const value = Number(first & 0xffffffffn) >>> 0;
  const out: InspectedClrException = { hresult: `0x${value.toString(16).padStart(8, '0')}` };
  const known = describeHresult(value);
  if (known) {
    out.hresultName = known.name;
    out.types = [...known.types];
  }
  const runtimeBase = parameters[4];
  if (runtimeBase !== undefined && runtimeBase !== 0n) {
    const module = modules.find((m) => m.base === runtimeBase);
    if (module) out.raisedBy = module.name;
  }
  return out;
}
