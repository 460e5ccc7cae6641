// Names the builtin engine's frames from symbol files: `module+0xoff` becomes
// `module!function+0xoff` with `file @ line` (the form cdb prints in `k`), and the record says,
// per module a frame lands in, where its symbols came from or why there are none.
import type { InspectedModule } from '../../processor/inspect.js';
import type { AnalyzeFrame, AnalyzeSymbolsInfo } from '../../report/analyze/analyze-record.js';
import { AbortedError } from '../../errors.js';
import type { SymbolLookup } from '../../symbols/index.js';
import {
  moduleIdentityKey,
  type SymbolModule,
  type Symbolizer,
} from '../../symbols/supplier/symbolizer.js';

/** What a dump's module list says, as the symbolizer wants it. */
export function symbolModule(m: InspectedModule): SymbolModule {
  return {
    name: m.name,
    path: m.path,
    timestamp: m.timestampEpoch,
    size: m.size,
    codeId: m.codeId,
    ...(m.pdbName !== undefined && m.debugId !== undefined
      ? { codeView: { pdbName: m.pdbName, debugId: m.debugId } }
      : {}),
  };
}

/**
 * Says, per module a frame lands in, where its symbols came from or why there are none, and
 * fills function/offset/source of frames nobody named yet (the exception frame when the stack
 * was not walked).
 * Frames found as return addresses (`scan`) are looked up one byte back, so a call that is the
 * last instruction of a function names that function and its line, not the next one.
 */
export async function nameFrames(
  frames: AnalyzeFrame[],
  modules: readonly InspectedModule[],
  symbolizer: Symbolizer,
  warnings: string[] = [],
  /** This dump's lookup failures during the walk, by module identity (SymbolFileProvider). */
  failures: ReadonlyMap<string, string> = new Map(),
): Promise<AnalyzeSymbolsInfo> {
  const info = new Map<string, AnalyzeSymbolsInfo['modules'][number]>();
  const images = modules.map((m) => ({
    m,
    base: BigInt(m.base),
    end: BigInt(m.base) + BigInt(m.size),
  }));
  for (const frame of frames) {
    if (frame.address === undefined) continue;
    const address = BigInt(frame.address);
    const image = images.find((i) => address >= i.base && address < i.end);
    if (!image) continue;
    const rva = Number(address - image.base);
    const back = frame.trust === 'scan' && rva > 0 ? 1 : 0;
    const module = symbolModule(image.m);
    const state = await symbolizer.forModule(module);
    if (!info.has(image.m.name)) {
      // Corrupt symbol files are worth a warning of their own, not only a reason in the list.
      if (!state.ok) for (const bad of state.badFiles ?? []) warnings.push(`symbols: ${bad}`);
      info.set(
        image.m.name,
        state.ok
          ? { module: image.m.name, status: 'loaded', format: state.format, origin: state.origin }
          : { module: image.m.name, status: 'missing', reason: state.reason },
      );
    }
    const failure = failures.get(moduleIdentityKey(module));
    const entry = info.get(image.m.name);
    if (failure !== undefined && entry !== undefined) entry.reason = failure;
    // Frames the stack walker named (through the same symbol files) are already done.
    if (!state.ok || frame.function !== undefined) continue;
    let hit: SymbolLookup | undefined;
    try {
      hit = await state.file.lookup(rva - back);
    } catch (error) {
      // A symbol file that breaks mid-lookup (corrupt past what opening checked) costs this
      // frame its name, never the dump's record or the batch.
      if (error instanceof AbortedError) throw error;
      const entry = info.get(image.m.name);
      if (entry !== undefined && entry.reason === undefined) {
        entry.reason = `lookup failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      continue;
    }
    if (!hit) continue;
    if (frame.offset !== undefined) frame.moduleOffset = frame.offset;
    frame.function = hit.function;
    frame.offset = `0x${(hit.functionOffset + back).toString(16)}`;
    if (hit.file !== undefined && hit.line !== undefined)
      frame.source = `${hit.file} @ ${hit.line}`;
  }
  return { modules: [...info.values()] };
}
