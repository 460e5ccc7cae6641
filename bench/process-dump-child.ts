// Child of bench/process-dump.ts: processDump() over one set of dumps in a fresh process, as
// analyze calls it (the file's bytes in hand, the exception thread walked, one supplier for the
// batch), and prints its CPU per dump as one JSON line.
//   node --import tsx bench/process-dump-child.ts ROOT peer|examples COUNT [PEER_DIR]
// ROOT is the checkout whose src/ is measured (this one, or a baseline for side-by-side runs).
// "cold" is the first COUNT dumps of the process (interpreter and JIT included, as a CLI run
// pays them); "warm" is COUNT more after those.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as ProcessDumpModule from '../src/processor/process-dump.js';
import type * as SupplierModule from '../src/symbols/supplier/symbol-supplier.js';

const [root, set, countText, peerDir] = process.argv.slice(2);
if (root === undefined || (set !== 'peer' && set !== 'examples') || countText === undefined) {
  throw new Error('usage: process-dump-child.ts ROOT peer|examples COUNT [PEER_DIR]');
}
if (set === 'peer' && peerDir === undefined) throw new Error('peer needs PEER_DIR');
const from = (path: string) => pathToFileURL(join(root, path)).href;
const { processDump } = (await import(
  from('src/processor/process-dump.ts')
)) as typeof ProcessDumpModule;
const { createSymbolSupplier } = (await import(
  from('src/symbols/supplier/symbol-supplier.ts')
)) as typeof SupplierModule;

const dir = set === 'peer' ? join(peerDir!, 'dumps') : join(root, 'examples', 'dumps');
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.dmp'))
  .map((f) => join(dir, f));
const bytes = files.map((f) => readFileSync(f));
// The peer corpus with its .sym files as the symbol path; the examples with the Wine prefix's
// system DLLs as images (the walk bench's setting): the caller names the prefix in WINEPREFIX,
// handed on as the supplier's winePrefix (the supplier itself never reads the environment's).
const winePrefix = process.env['WINEPREFIX'];
const supplier = await createSymbolSupplier(
  set === 'peer'
    ? { symbolPath: join(peerDir!, 'symbols') }
    : winePrefix === undefined
      ? {}
      : { winePrefix },
);
const count = Number(countText);
let next = 0;
let frames = 0;
async function run(n: number): Promise<number> {
  const before = process.cpuUsage();
  for (let k = 0; k < n; k++, next++) {
    const i = next % files.length;
    const state = await processDump(files[i]!, {
      bytes: bytes[i]!,
      threads: 'exception',
      supplier,
    });
    if (!state.ok) throw new Error(`${files[i]}: ${state.error.message}`);
    for (const thread of state.threads) frames += thread.callStack?.frames.length ?? 0;
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000 / n;
}
const cold = await run(count);
const warm = await run(count);
await supplier.close();
console.log(JSON.stringify({ set, dumps: count, coldMs: cold, warmMs: warm, frames }));
