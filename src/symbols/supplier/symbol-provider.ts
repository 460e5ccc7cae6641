// The stack walker's hooks (src/stackwalk/types.ts) served from symbol files: names
// (SymbolProvider: PDB procedures/publics or Breakpad FUNC/PUBLIC, with file:line) and, from
// Breakpad files, unwind data (UnwindProvider: STACK CFI rules, STACK WIN frame data — the only
// unwind data an x86 dump without images has).
import type {
  CfiRules,
  ModuleRef,
  SymbolHit,
  SymbolProvider,
  UnwindProvider,
  X86FrameData,
} from '../../stackwalk/types.js';
import { AbortedError, shortErrorMessage } from '../../errors.js';
import { BreakpadSymbols } from '../index.js';
import { moduleIdentityKey } from './module-identity-key.js';
import type { Symbolizer } from './symbolizer.js';

/** The walker's hooks for one dump, and what went wrong in that dump's lookups. */
export interface SymbolFileProvider extends SymbolProvider, UnwindProvider {
  /**
   * Lookups that failed while walking this dump, by module identity (moduleIdentityKey): a
   * corrupt PDB of one build never shows in the record of a dump of another build, nor in the
   * record of another dump at all (make one provider per dump).
   */
  readonly failures: ReadonlyMap<string, string>;
}

export function symbolFileProvider(symbolizer: Symbolizer): SymbolFileProvider {
  const failures = new Map<string, string>();
  // Each read holds the file open (symbolizer.use): the batch's budget of open files never
  // closes one under a lookup.
  const breakpad = <T>(
    module: ModuleRef,
    read: (sym: BreakpadSymbols) => Promise<T | undefined> | T | undefined,
  ): Promise<T | undefined> =>
    symbolizer
      .use(module, (state) =>
        state.file instanceof BreakpadSymbols ? read(state.file) : undefined,
      )
      .then((value) => value ?? undefined);
  return {
    failures,
    async lookup(module: ModuleRef, rva: number): Promise<SymbolHit | undefined> {
      try {
        const found = await symbolizer.use(module, async (state) => {
          const hit = await state.file.lookup(rva);
          return hit === undefined ? undefined : { hit, format: state.format };
        });
        if (found === undefined) return undefined;
        const { hit, format } = found;
        if (hit.warning !== undefined) {
          // A name from a file read only in part: right, but said (lines may be missing).
          const key = moduleIdentityKey(module);
          if (!failures.has(key)) failures.set(key, `symbols read in part: ${hit.warning}`);
        }
        return {
          function: hit.function,
          offset: hit.functionOffset,
          ...(hit.file === undefined ? {} : { file: hit.file }),
          ...(hit.line === undefined ? {} : { line: hit.line }),
          source: format,
        };
      } catch (error) {
        // A file corrupt past what opening checked costs this frame its name, nothing more.
        if (error instanceof AbortedError) throw error;
        const key = moduleIdentityKey(module);
        if (!failures.has(key)) failures.set(key, `lookup failed: ${shortErrorMessage(error)}`);
        return undefined;
      }
    },
    // A loaded PDB or .sym lists every function of its module (PDB publics stop at the end of
    // their code section), so an address it cannot name is in none.
    async covers(module: ModuleRef): Promise<boolean> {
      return (await symbolizer.forModule(module)).ok;
    },
    async cfi(module: ModuleRef, rva: number): Promise<CfiRules | undefined> {
      return breakpad(module, (sym) => sym.stack.cfiRulesAt(rva));
    },
    async x86Frame(module: ModuleRef, rva: number): Promise<X86FrameData | undefined> {
      const win = await breakpad(module, (sym) => sym.stack.winAt(rva));
      if (win === undefined) return undefined;
      return {
        type: win.type,
        rva: win.rva,
        codeSize: win.codeSize,
        prologSize: win.prologueSize,
        epilogSize: win.epilogueSize,
        parameterSize: win.parameterSize,
        savedRegisterSize: win.savedRegisterSize,
        localSize: win.localSize,
        maxStackSize: win.maxStackSize,
        allocatesBasePointer: win.allocatesBasePointer ?? false,
        ...(win.programString === undefined ? {} : { programString: win.programString }),
      };
    },
  };
}
