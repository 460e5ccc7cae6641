// A module as the symbol supplier sees it, for tests: one build of C:\app\<name> whose CodeView
// record names `pdbName` with `debugId`.
import type { SymbolModule } from '../../src/symbols/supplier/module-identity-key.js';

/** The debug id (GUID and age) the modules carry unless a test gives another. */
export const TEST_DEBUG_ID = '0123456789ABCDEF0123456789ABCDEF1';

export function symbolModule(
  pdbName: string,
  debugId = TEST_DEBUG_ID,
  name = 'app.dll',
): SymbolModule {
  return {
    name,
    path: `C:\\app\\${name}`,
    timestamp: 0x5f3a1b2c,
    size: 0x8000,
    codeView: { pdbName, debugId },
  };
}
