// processDump() with a supplier made for one call (the way a run makes one for its batch):
// built through createSymbolSupplier() from `supply`, closed when the dump is done. Symbol files
// only when `supply` names a symbol path (never the test machine's _NT_SYMBOL_PATH).
import type { Minidump } from '../../src/minidump/minidump.js';
import { processDump, type ProcessOptions } from '../../src/processor/process-dump.js';
import type { ProcessResult } from '../../src/processor/process-state.js';
import {
  createSymbolSupplier,
  type SupplierOptions,
} from '../../src/symbols/supplier/symbol-supplier.js';

export async function processSupplied(
  dump: string | Minidump,
  options: ProcessOptions,
  supply: SupplierOptions,
): Promise<ProcessResult> {
  const supplier = await createSymbolSupplier({
    symbolFiles: supply.symbolPath !== undefined,
    ...supply,
  });
  try {
    return await processDump(dump, { ...options, supplier });
  } finally {
    await supplier.close();
  }
}
