// Per module a walked frame (or the exception) lands in: where its symbol files came from, or
// why it has none, read from the supplier's cache (the walk already asked for every one of them,
// so nothing is looked up twice). analyze records and `inspect --json` carry the list, so a
// bucket that differs between two machines can be explained by the files each one used.
import type { Symbolizer } from '../symbols/supplier/symbolizer.js';
import type { ModuleSymbolStatus, ProcessModule, ProcessState } from './process-state.js';

export async function moduleSymbolStatus(
  state: ProcessState,
  symbols: Symbolizer,
  warnings: string[],
): Promise<ModuleSymbolStatus[]> {
  const seen = new Map<string, ProcessModule>();
  const add = (module: ProcessModule | undefined) => {
    if (module !== undefined && !seen.has(module.name)) seen.set(module.name, module);
  };
  add(state.exception?.module);
  for (const thread of state.threads) {
    for (const frame of thread.callStack?.frames ?? []) {
      add(state.modules.find((m) => m === frame.module));
    }
  }
  const out: ModuleSymbolStatus[] = [];
  for (const [name, module] of seen) {
    const loaded = await symbols.forModule(module);
    const failure = symbols.lookupFailures.get(name);
    if (loaded.ok) {
      out.push({
        module: name,
        status: 'loaded',
        format: loaded.format,
        origin: loaded.origin,
        ...(failure === undefined ? {} : { reason: failure }),
      });
    } else {
      // Corrupt symbol files are worth a warning of their own, not only a reason in the list.
      for (const bad of loaded.badFiles ?? []) warnings.push(`symbols: ${bad}`);
      out.push({
        module: name,
        status: 'missing',
        reason: failure ?? loaded.reason,
      });
    }
  }
  return out;
}
