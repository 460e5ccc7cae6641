// The stack walker's published interface: what a walked frame is, and the three hooks the walker
// is handed instead of doing I/O itself: memory of the target, module images (for .pdata/.xdata,
// export tables and code bytes), and naming / unwind data from symbol files. Other layers (the
// symbols leaf, the analyze and inspect wiring) implement these; this file only grows (add fields
// and members, never rename). The frame shape follows rust-minidump's StackFrame and its
// FrameTrust (https://docs.rs/minidump-unwind/latest/minidump_unwind/enum.FrameTrust.html).

import type { ModuleCodeView, ModuleIdentity } from '../common/module-identity.js';

/** The CPU whose stacks are walked. */
export type StackArch = 'x86' | 'amd64';

/**
 * How a frame was found, best first:
 * - `context`: frame 0, from a register context (the exception's for the crashing thread), or a
 *   later frame from a CONTEXT record found on the stack (an exception frame: the registers of
 *   the frame it interrupted);
 * - `cfi`: unwind data said where the caller's registers are (x64 .pdata/.xdata, a leaf function
 *   with no unwind data on x64, Breakpad STACK CFI / STACK WIN);
 * - `frame-pointer`: the x86 EBP chain (or an x64 frame register);
 * - `leaf`: x64 frame 1 when frame 0's function has no unwind data and no image says more: the
 *   word at RSP taken as the return address, as if frame 0 were a leaf function (Breakpad's
 *   "simulating a return from leaf function");
 * - `scan-call`: a stack word pointing just after a `call` instruction in a module's code;
 * - `scan`: a stack word pointing into an executable section (or, with no image, into a module;
 *   with symbols loaded for the module, into one of its functions).
 */
export type FrameTrust = 'context' | 'cfi' | 'frame-pointer' | 'leaf' | 'scan-call' | 'scan';

/**
 * A loaded module as the dump describes it: the one ModuleIdentity of the dump side
 * (src/common/module-identity.ts). The walker keeps the object it was handed on each frame.
 */
export type ModuleRef = ModuleIdentity;
export type { ModuleIdentity, ModuleCodeView };

/** A name for an address: `function+offset`, and the source line when a symbol file has it. */
export interface SymbolHit {
  /** `crash_here`, `RaiseException`, `Program.Main()`. */
  function: string;
  /** Bytes from the function's start. */
  offset: number;
  file?: string;
  line?: number;
  /** Where the name came from: `export` (the image's export table), `pdb`, `breakpad`, …. */
  source?: string;
}

/** Names addresses inside a module. The export-table namer is one; PDB / .sym readers are others. */
export interface SymbolProvider {
  lookup(module: ModuleRef, rva: number): SymbolHit | undefined | Promise<SymbolHit | undefined>;
  /**
   * True when a symbol file describing every function of `module` is loaded, so an address
   * lookup() cannot name lies in no function: a scanned word there is no return address.
   * Providers without function ranges (the export table) leave it out.
   */
  covers?(module: ModuleRef): boolean | Promise<boolean>;
  /**
   * Inlined calls active at `rva` (the lookup address), innermost first, each named with its own
   * source line (SymbolHit.offset from the inlined body's first byte). Asked once per frame the
   * walk keeps, after lookup() named it, never for scanned candidates. Optional: providers whose
   * files have no inline data leave it out.
   */
  inlines?(
    module: ModuleRef,
    rva: number,
  ): SymbolHit[] | undefined | Promise<SymbolHit[] | undefined>;
}

/**
 * Why a walk ended: `end` (no caller: the thread's start routine, or unwind data said so),
 * `limit`, `budget`, `cycle`, `lost`.
 */
export type WalkStop = 'end' | 'limit' | 'budget' | 'cycle' | 'lost';

/** One walked frame. Frame 0 is where the thread is; each later frame is a caller. */
export interface StackFrame {
  index: number;
  /** Instruction pointer: frame 0's current instruction, else the return address into it. */
  address: bigint;
  /**
   * The address names and source lines are looked up at, decided once, here (rust-minidump's
   * `StackFrame::instruction`): the instruction pointer for a frame taken from a register context,
   * else the return address minus one, inside the call instruction, so a call that is the last
   * instruction of a function names that function and its line, not the next one.
   */
  instruction: bigint;
  /**
   * The return address this frame was found through (address of frames ≥ 1); debuggers look it
   * up at `address - 1` so a call at a function's very end names the caller, not the next one.
   */
  returnAddress?: bigint;
  /** The stack pointer in this frame (for frame ≥ 1: just above the return address slot). */
  stackPointer: bigint;
  /** EBP / the x64 frame register when the walk used or recovered it. */
  framePointer?: bigint;
  trust: FrameTrust;
  module?: ModuleRef;
  /** `address - module.base`. */
  moduleOffset?: number;
  /** Named during the walk by WalkInput.symbols (offset from the function start to `address`). */
  symbol?: SymbolHit;
  /**
   * Calls the compiler inlined into `symbol`'s function that are active at `instruction`,
   * innermost first: WinDbg's `(Inline Function)` frames, shown above this frame and sharing its
   * address and stack pointer. `symbol`'s own line is then the outermost call's site.
   */
  inlines?: SymbolHit[];
}

/** What a walk of one thread gives: frames top first, and why it stopped early, if it did. */
export interface StackWalk {
  threadId: number;
  frames: StackFrame[];
  /** A corrupt or truncated stack ends the walk with a warning here, never an error. */
  warnings: string[];
  stop: WalkStop;
  /**
   * With stop `budget`: which budget ended the walk: `time` (the caller's clock, outOfTime) or
   * `reads` (the read budget, the same on every run).
   */
  cut?: 'time' | 'reads';
}

/** The target's memory (a dump's captured ranges). null or a short answer: not captured. */
export interface TargetMemory {
  read(address: bigint, length: number): Promise<Uint8Array | null>;
  /**
   * What read() would answer, when that is known without waiting (a captured stack already in
   * hand, an address no captured range holds); undefined when only read() can tell. Optional:
   * the walker's synchronous path (walk-memory.ts) uses it to read without a promise.
   */
  readNow?(address: bigint, length: number): Uint8Array | null | undefined;
}

/**
 * A module's image as mapped: bytes by RVA (a disk file is mapped through its section table by
 * the walker's PE reader, so providers hand either form; see ImageBytes.layout).
 */
export interface ImageBytes {
  /** `mapped`: offsets are RVAs (image in the dump's memory); `file`: offsets are file offsets. */
  layout: 'mapped' | 'file';
  /** Up to `length` bytes at `offset`; shorter or null when not available. */
  read(offset: number, length: number): Promise<Uint8Array | null>;
  /** Where the image came from, for reports: `dump`, `recorded-path`, `image-path`, `store`, …. */
  origin: string;
  /** A file path when there is one. */
  path?: string;
}

/**
 * Finds a module's image. Checked against the module's timestamp and size by the caller, so a
 * locator may hand back a candidate (a file at the recorded path, a store entry, a symbol server
 * download). Returning undefined means "not here"; the walker then falls back to scanning.
 */
export interface ImageLocator {
  locate(module: ModuleRef): Promise<ImageBytes | undefined>;
}

/**
 * x86 frame data for one function: FPO_DATA (PDB / Breakpad `STACK WIN 0`) or FrameData
 * (`STACK WIN 4`, with a program string), as in Breakpad's WindowsFrameInfo
 * (https://chromium.googlesource.com/breakpad/breakpad/+/master/docs/symbol_files.md).
 */
export interface X86FrameData {
  /** 0 = FPO, 4 = FrameData (the STACK WIN type field). */
  type: number;
  /** RVA and length of the code the record covers. */
  rva: number;
  codeSize: number;
  prologSize: number;
  epilogSize: number;
  /** Bytes of parameters the function pops (callee-cleaned) or the caller pushed. */
  parameterSize: number;
  savedRegisterSize: number;
  localSize: number;
  maxStackSize?: number;
  /** True when the function sets up EBP as its frame pointer. */
  allocatesBasePointer: boolean;
  /** Postfix program (`$T0 $ebp = $eip $T0 4 + ^ = …`), for type 4 records. */
  programString?: string;
}

/**
 * Breakpad `STACK CFI` rules in effect at one address: register name → postfix expression
 * (`.cfa: $rsp 8 +`, `.ra: .cfa 8 - ^`, `$rbx: .cfa 16 - ^`).
 */
export interface CfiRules {
  cfa: string;
  ra: string;
  registers: Record<string, string>;
}

/**
 * Unwind data from symbol files (the symbols leaf fills it from PDB FPO / Breakpad records).
 * Consulted before the walker's own image-based unwind on x86, after it on x64.
 */
export interface UnwindProvider {
  x86Frame?(
    module: ModuleRef,
    rva: number,
  ): X86FrameData | undefined | Promise<X86FrameData | undefined>;
  cfi?(module: ModuleRef, rva: number): CfiRules | undefined | Promise<CfiRules | undefined>;
}

/** Register values by lower-case name (`rip`, `rsp`, `rbp`, `rbx`, … or `eip`, `esp`, `ebp`, …). */
export type RegisterSet = Record<string, bigint>;

/** Bounds every walk keeps, whatever the stack holds. */
export interface WalkLimits {
  /** At most this many frames (default 256). */
  maxFrames?: number;
  /**
   * Work budget per thread, in memory reads (the leaf has no clock: the caller turns a time
   * budget into this; default 4096).
   */
  maxReads?: number;
  /** How far above the stack pointer a scan looks for one caller, in bytes (default 8 KiB). */
  maxScanBytes?: number;
  /**
   * Asked before each caller is looked for; true ends the walk (stop `budget`). The caller's
   * time budget per thread: the leaf itself has no clock.
   */
  outOfTime?: () => boolean;
}

/** Everything one walk is handed. */
export interface WalkInput {
  arch: StackArch;
  threadId: number;
  /** The starting registers (exception context for the crashing thread, else the thread's). */
  registers: RegisterSet;
  /** The thread's stack bounds when known: scans never leave them. */
  stack?: { low: bigint; high: bigint };
  memory: TargetMemory;
  modules: readonly ModuleRef[];
  /** Parsed images by module base (see image.ts), found by the caller through an ImageLocator. */
  images?: ModuleImages;
  unwind?: UnwindProvider;
  /**
   * Names each frame as it is found, at its `instruction` (symbol files, then export tables);
   * scanned candidates are checked against the functions a symbol file knows (see covers()), and
   * the walk ends at the thread's start routine (ntdll!RtlUserThreadStart, XP's
   * kernel32!BaseProcessStart / BaseThreadStart).
   */
  symbols?: SymbolProvider;
  limits?: WalkLimits;
  /**
   * Windows Vista or later (SystemInfo major version 6 and up): every thread starts in
   * ntdll!RtlUserThreadStart, so a walk that scanned past it ends there even without ntdll's
   * names (thread-start.ts). XP's threads start in kernel32.
   */
  startsInNtdll?: boolean;
}

/** The parsed module images a walk may use, looked up by module; may parse lazily. */
export interface ModuleImages {
  image(module: ModuleRef): Promise<ImageView | undefined>;
}

/**
 * What the walker needs of a PE image: bytes by RVA, its executable ranges, x64 unwind entries and
 * exports. Implemented by src/stackwalk/pe-image.ts over ImageBytes.
 */
export interface ImageView {
  readonly origin: string;
  readonly path?: string;
  /** Bytes by RVA (null when outside the image or not available). */
  readRva(rva: number, length: number): Promise<Uint8Array | null>;
  /** True when `rva` is inside an executable section. */
  isExecutable(rva: number): boolean;
  /** The x64 RUNTIME_FUNCTION covering `rva` (begin, end, unwind-info RVA), if any. */
  runtimeFunction(rva: number): Promise<{ begin: number; end: number; unwindInfo: number } | null>;
  /**
   * runtimeFunction() when the answer is at hand without a read (the table's blocks already read);
   * undefined when only runtimeFunction() can tell. Optional: the walker's synchronous path.
   */
  runtimeFunctionNow?(
    rva: number,
  ): { begin: number; end: number; unwindInfo: number } | null | undefined;
}
