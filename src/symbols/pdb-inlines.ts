// The inline frames of one address inside a PDB procedure: its inline-site records (read again
// from the module stream for this one procedure, see ProcRange.inlineRecords), the chain of sites
// active at the address, each inlinee's name (IPI stream) and its source line (the module's
// DEBUG_S_INLINEELINES entry plus the site's line offset at the address). The format and its
// sources are described in inline-sites.ts.
import {
  activeChain,
  parseInlineeLines,
  parseInlineSites,
  type InlineeSource,
} from './inline-sites.js';
import type { InlineLookup } from './lookup-types.js';
import type { ModuleSymbols, ProcRange } from './module-stream.js';

export interface InlineContext {
  /** The procedure's inline-site records (ProcRange.inlineRecords), and where they start. */
  records: Buffer;
  from: number;
  proc: ProcRange;
  symbols: ModuleSymbols;
  /** The inlinee's display name from its id; undefined when the id stream cannot say. */
  name: (id: number) => Promise<string | undefined>;
}

/** Inlinee first lines by module, parsed the first time a frame needs them. */
const sourcesOf = new WeakMap<
  ModuleSymbols,
  { map: Map<number, InlineeSource>; problem?: string }
>();

/**
 * The inline frames at rva, innermost first; `problem` when the records cannot be trusted (then
 * no frames: a chain read from a broken record could name a call that is not there).
 */
export async function inlineFrames(
  context: InlineContext,
  rva: number,
): Promise<{ frames: InlineLookup[]; problem?: string }> {
  const { sites, problem } = parseInlineSites(context.records, context.from);
  if (problem !== undefined) return { frames: [], problem };
  const chain = activeChain(sites, rva - context.proc.rva);
  if (chain.length === 0) return { frames: [] };
  const sources = inlineeSources(context.symbols);
  const frames: InlineLookup[] = [];
  for (const { site, range } of chain) {
    const first = site.ranges.reduce((low, r) => Math.min(low, r.start), range.start);
    const source = sources.map.get(site.inlinee);
    const fileId = range.file ?? source?.file;
    const file = fileId === undefined ? undefined : context.symbols.fileNames?.get(fileId);
    const name = await context.name(site.inlinee);
    frames.push({
      function: name ?? `inline#0x${site.inlinee.toString(16)}`,
      functionOffset: rva - (context.proc.rva + first),
      ...(file === undefined ? {} : { file }),
      ...(source === undefined ? {} : { line: source.line + range.lineDelta }),
    });
  }
  return {
    frames,
    ...(sources.problem === undefined ? {} : { problem: sources.problem }),
  };
}

function inlineeSources(symbols: ModuleSymbols): {
  map: Map<number, InlineeSource>;
  problem?: string;
} {
  let sources = sourcesOf.get(symbols);
  if (sources === undefined) {
    const map = new Map<number, InlineeSource>();
    let problem: string | undefined;
    for (const bytes of symbols.inlineeLines ?? []) {
      const parsed = parseInlineeLines(bytes);
      for (const [id, source] of parsed.inlinees) map.set(id, source);
      problem ??= parsed.problem;
    }
    sources = { map, ...(problem === undefined ? {} : { problem }) };
    sourcesOf.set(symbols, sources);
  }
  return sources;
}
