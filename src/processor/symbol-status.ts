// Per module a walked frame (or the exception) lands in: where its symbol files came from, or
// why it has none, read from the supplier's cache (the walk already asked for every one of them,
// so nothing is looked up twice). analyze records and `inspect --json` carry the list, so a
// bucket that differs between two machines can be explained by the files each one used.
import type { SymbolFileProvider } from '../symbols/supplier/symbol-provider.js';
import { moduleIdentityKey } from '../symbols/supplier/module-identity-key.js';
import type { Symbolizer } from '../symbols/supplier/symbolizer.js';
import type { ModuleIdentity } from '../common/module-identity.js';
import type { ModuleSymbolStatus, ProcessState } from './process-state.js';

export async function moduleSymbolStatus(
  /** The modules frames (and the exception) landed in, in the order they were met. */
  modules: Iterable<ModuleIdentity>,
  symbols: Symbolizer,
  /** This dump's provider: its lookup failures, by module identity. */
  provider: SymbolFileProvider,
  warnings: string[],
): Promise<ModuleSymbolStatus[]> {
  const seen = new Map<string, ModuleIdentity>();
  for (const module of modules) if (!seen.has(module.name)) seen.set(module.name, module);
  const out: ModuleSymbolStatus[] = [];
  for (const [name, module] of seen) {
    // Settled already for every module a walk met: no promise to wait for then.
    const loaded = symbols.answerNow(module) ?? (await symbols.forModule(module));
    const failure = provider.failures.get(moduleIdentityKey(module));
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

/** The modules of `state` that the exception and the walked frames land in, first met first. */
export function modulesInUse(state: ProcessState): ModuleIdentity[] {
  const out = new Set<ModuleIdentity>();
  if (state.exception?.module !== undefined) out.add(state.exception.module);
  for (const thread of state.threads) {
    for (const frame of thread.callStack?.frames ?? []) {
      if (frame.module !== undefined) out.add(frame.module);
    }
  }
  return [...out];
}
