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
import { BreakpadSymbols, type SymbolLookup } from '../index.js';
import type { StackWinEntry } from '../breakpad-stack.js';
import { moduleIdentityKey } from './module-identity-key.js';
import type { LoadedSymbols, Symbolizer } from './symbolizer.js';

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
  // This dump's settled answers by module object: once a module's answer is known, a lookup the
  // file answers from records already in memory runs with no promise, key or hold (a walk asks
  // per frame, per scanned word). Dropped when the symbolizer forgets an answer (a file closed).
  const known = new Map<ModuleRef, LoadedSymbols | false>();
  let generation = symbolizer.generation;
  const loadedNow = (module: ModuleRef): LoadedSymbols | false | undefined => {
    if (!symbolizer.readsNow) return undefined;
    if (generation !== symbolizer.generation) {
      known.clear();
      generation = symbolizer.generation;
    }
    let loaded = known.get(module);
    if (loaded === undefined) {
      const state = symbolizer.settledNow(module);
      if (state === undefined) return undefined;
      loaded = state.ok ? state : false;
      known.set(module, loaded);
    }
    return loaded;
  };
  const failed = (module: ModuleRef, error: unknown): undefined => {
    // A file corrupt past what opening checked costs this frame its name, nothing more.
    if (error instanceof AbortedError) throw error;
    const key = moduleIdentityKey(module);
    if (!failures.has(key)) failures.set(key, `lookup failed: ${shortErrorMessage(error)}`);
    return undefined;
  };
  const named = (module: ModuleRef, hit: SymbolLookup, format: string): SymbolHit => {
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
  };
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
  const lookupLater = async (module: ModuleRef, rva: number): Promise<SymbolHit | undefined> => {
    try {
      const found = await symbolizer.use(module, async (state) => {
        const hit = await state.file.lookup(rva);
        return hit === undefined ? undefined : { hit, format: state.format };
      });
      return found === undefined ? undefined : named(module, found.hit, found.format);
    } catch (error) {
      return failed(module, error);
    }
  };
  const inlinesLater = async (module: ModuleRef, rva: number): Promise<SymbolHit[] | undefined> => {
    try {
      const found = await symbolizer.use(module, async (state) => {
        const inlines = await state.file.inlinesAt?.(rva);
        return inlines === undefined ? undefined : { inlines, format: state.format };
      });
      if (found === undefined || found.inlines.length === 0) return undefined;
      return found.inlines.map((hit) => ({
        function: hit.function,
        offset: hit.functionOffset,
        ...(hit.file === undefined ? {} : { file: hit.file }),
        ...(hit.line === undefined ? {} : { line: hit.line }),
        source: found.format,
      }));
    } catch (error) {
      // Inline records that do not parse cost the frame its inline frames, said in the record.
      return failed(module, error);
    }
  };
  const x86Later = async (module: ModuleRef, rva: number): Promise<X86FrameData | undefined> => {
    const win = await breakpad(module, (sym) => sym.stack.winAt(rva));
    return win === undefined ? undefined : frameData(win);
  };
  return {
    failures,
    lookup(module: ModuleRef, rva: number): SymbolHit | undefined | Promise<SymbolHit | undefined> {
      const loaded = loadedNow(module);
      if (loaded === false) return undefined;
      if (loaded?.file.lookupNow !== undefined) {
        try {
          const hit = loaded.file.lookupNow(rva);
          if (hit === undefined) return undefined;
          if (hit !== null) return named(module, hit, loaded.format);
        } catch (error) {
          return failed(module, error);
        }
      }
      return lookupLater(module, rva);
    },
    // Only files with inline data (PDBs) answer, and only for frames the walk keeps. The module's
    // settled answer says so without a promise: a frame in a module with no symbol file, or with
    // a .sym, costs one map look-up.
    inlines(
      module: ModuleRef,
      rva: number,
    ): SymbolHit[] | undefined | Promise<SymbolHit[] | undefined> {
      const state = symbolizer.answerNow(module);
      if (state !== undefined && (!state.ok || state.file.inlinesAt === undefined))
        return undefined;
      return inlinesLater(module, rva);
    },
    // A loaded PDB or .sym lists every function of its module (PDB publics stop at the end of
    // their code section), so an address it cannot name is in none.
    covers(module: ModuleRef): boolean | Promise<boolean> {
      const state = symbolizer.answerNow(module);
      if (state !== undefined) return state.ok;
      return symbolizer.forModule(module).then((settled) => settled.ok);
    },
    cfi(module: ModuleRef, rva: number): CfiRules | undefined | Promise<CfiRules | undefined> {
      const loaded = loadedNow(module);
      if (loaded === false) return undefined;
      if (loaded !== undefined) {
        if (!(loaded.file instanceof BreakpadSymbols)) return undefined;
        const rules = loaded.file.stack.cfiRulesAtNow(rva);
        if (rules !== null) return rules;
      }
      return breakpad(module, (sym) => sym.stack.cfiRulesAt(rva));
    },
    x86Frame(
      module: ModuleRef,
      rva: number,
    ): X86FrameData | undefined | Promise<X86FrameData | undefined> {
      const loaded = loadedNow(module);
      if (loaded === false) return undefined;
      if (loaded !== undefined) {
        if (!(loaded.file instanceof BreakpadSymbols)) return undefined;
        const win = loaded.file.stack.winAtNow(rva);
        if (win === undefined) return undefined;
        if (win !== null) return frameData(win);
      }
      return x86Later(module, rva);
    },
  };
}

function frameData(win: StackWinEntry): X86FrameData {
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
}
