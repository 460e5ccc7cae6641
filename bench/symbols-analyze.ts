// Benchmark: `analyze --engine builtin` on 200 dumps sharing ~10 modules, without and with
// symbols (a `srv*CACHE*http://127.0.0.1:PORT` path served by a local HTTP symbol server holding
// the program's PDB; the system DLLs have no symbols and are looked for once per batch).
//   node --import tsx bench/symbols-analyze.ts [--dumps 200] [--rounds 3]
// The dump is a real crash of symcrash.exe (clang + lld, with `libs`: ~10 modules) written by
// winedbg once and cached in build/bench/; the batch is that dump copied N times (each copy is
// analysed in full: nothing is shared between dumps but the Symbolizer's per-module cache, which
// is the point). Rounds alternate without/with symbols in one process; medians are printed.
// Goal from the issue: with symbols ≤ 1.5× the time without.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { analyzeDumps } from '../src/workflows/analyze/analyze.js';
import { pdbPathOf } from '../test/helpers/pdb-targets.js';
import { startSymbolServer } from '../test/helpers/symbol-server.js';
import { symcrashLibsDump } from './symcrash-dump.js';
import { PositionedFileReader } from '../src/minidump/file-reader.js';
import { readImageIdentity } from '../src/symbols/index.js';
import { targetPath } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const DUMPS = option('--dumps', 200);
const ROUNDS = option('--rounds', 3);
const { benchDir, source } = await symcrashLibsDump();
// The batch is copies of this checkout's dump (see symcrash-dump.ts), so it is named after it.
const batch = join(benchDir, `batch-${basename(source, '.dmp')}-${DUMPS}`);
if (!existsSync(join(batch, `d${DUMPS - 1}.dmp`))) {
  mkdirSync(batch, { recursive: true });
  for (let i = 0; i < DUMPS; i++) copyFileSync(source, join(batch, `d${i}.dmp`));
}

const image = await PositionedFileReader.open(targetPath('symcrash'));
const debugId = (await readImageIdentity(image, 'symcrash.exe')).codeView?.debugId ?? '';
await image.close();
const storeDir = mkdtempSync(join(tmpdir(), 'cdbh-bench-store-'));
mkdirSync(join(storeDir, 'symcrash.pdb', debugId), { recursive: true });
copyFileSync(pdbPathOf('symcrash'), join(storeDir, 'symcrash.pdb', debugId, 'symcrash.pdb'));
const server = await startSymbolServer(storeDir);

async function run(withSymbols: boolean): Promise<{ ms: number; named: boolean; modules: number }> {
  const out = mkdtempSync(join(tmpdir(), 'cdbh-bench-out-'));
  const cache = mkdtempSync(join(tmpdir(), 'cdbh-bench-cache-'));
  try {
    const started = performance.now();
    let named = false;
    let modules = 0;
    await analyzeDumps({
      inputs: [batch],
      outDir: out,
      engine: 'builtin',
      env: {},
      ...(withSymbols ? { symbolPath: `srv*${cache}*${server.url}` } : {}),
      onEvent: (e) => {
        if (e.type === 'dump' && e.record !== undefined) {
          named ||= e.record.frames[0]?.function === 'store_value';
          modules = e.record.modules.count;
        }
      },
    });
    return { ms: performance.now() - started, named, modules };
  } finally {
    rmSync(out, { recursive: true, force: true });
    rmSync(cache, { recursive: true, force: true });
  }
}

const plain: number[] = [];
const symbols: number[] = [];
let modules = 0;
for (let round = 0; round < ROUNDS; round++) {
  const a = await run(false);
  const b = await run(true);
  if (!b.named) throw new Error('the symbols run did not name the crash frame');
  modules = b.modules;
  plain.push(a.ms);
  symbols.push(b.ms);
  console.log(
    `round ${round + 1}: without ${a.ms.toFixed(0)} ms, with symbols ${b.ms.toFixed(0)} ms`,
  );
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? 0;
console.log(
  `${DUMPS} dumps × ${modules} modules: without symbols ${median(plain).toFixed(0)} ms, with ${median(symbols).toFixed(0)} ms (median of ${ROUNDS}): ${(median(symbols) / median(plain)).toFixed(2)}× (goal ≤ 1.5×); HTTP requests over all runs: ${server.requests.length}`,
);
await server.close();
rmSync(storeDir, { recursive: true, force: true });
