// What a symbol file answers for one address, whichever kind of file it is (PDB or Breakpad .sym).

export interface SymbolLookup {
  /** Function (or public symbol) name as the symbol file spells it. */
  function: string;
  /** rva − start of the function. */
  functionOffset: number;
  /** Source file as the compiler recorded it (often a build machine's absolute path). */
  file?: string;
  line?: number;
  /** Where the name came from: a procedure with a range, or the nearest public symbol below. */
  kind: 'function' | 'public';
  /** The name is right but the file was read only in part: why (lines may be missing). */
  warning?: string;
}

/**
 * One inlined call active at an address: the function whose body the compiler copied into its
 * caller, as WinDbg shows it in an `(Inline Function)` frame, with its own source line there.
 */
export interface InlineLookup {
  function: string;
  /** rva − the first byte of the inlined body. */
  functionOffset: number;
  file?: string;
  line?: number;
}

/** A loaded symbol file for one module, keyed by RVA (address − module base). */
export interface ModuleSymbolFile {
  readonly format: 'pdb' | 'breakpad';
  lookup(rva: number): Promise<SymbolLookup | undefined>;
  /**
   * What lookup(rva) answers when that is known without reading the file (the records it needs
   * were read lately); null when only lookup() can tell. Optional: files without it always wait.
   */
  lookupNow?(rva: number): SymbolLookup | undefined | null;
  /**
   * Inlined calls active at rva, innermost first; lookup(rva)'s file and line are then those of
   * the outermost call's site in the function itself. Optional: read only for frames on a stack.
   */
  inlinesAt?(rva: number): Promise<InlineLookup[]>;
}
