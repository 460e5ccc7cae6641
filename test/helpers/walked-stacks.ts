// The walked stacks of one dump as the tests of the walker read them: processDump() through the
// `inspect --json` edge (addresses as `0x…`, frame labels as `k` prints them), gathered per thread.
import type { ProcessOptions } from '../../src/processor/process-dump.js';
import { inspectJson, type InspectedStack } from '../../src/report/inspect/index.js';
import type { SupplierOptions } from '../../src/symbols/supplier/symbol-supplier.js';
import { processSupplied } from './supplied.js';

export interface WalkedStacks {
  /** `x86`, `amd64`, … (SystemInfo). */
  arch: string | undefined;
  stacks: (InspectedStack & { threadId: number })[];
  exceptionRegisters?: Record<string, string>;
  /** Where each module image was found (`dump`, a path, `not found`). */
  images: Record<string, string>;
  warnings: string[];
}

export async function walkedStacks(
  path: string,
  options: ProcessOptions = {},
  supply: SupplierOptions = {},
): Promise<WalkedStacks> {
  const dump = inspectJson(await processSupplied(path, { threads: 'all', ...options }, supply));
  if (!dump.ok) throw new Error(`${path}: ${dump.error.message}`);
  const out: WalkedStacks = {
    arch: dump.system?.arch,
    stacks: dump.threads.flatMap((t) => (t.stack ? [{ threadId: t.id, ...t.stack }] : [])),
    images: dump.images ?? {},
    warnings: dump.warnings,
  };
  if (dump.exception?.registers !== undefined) out.exceptionRegisters = dump.exception.registers;
  return out;
}
