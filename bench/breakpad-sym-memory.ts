// Benchmark: memory of a big Breakpad .sym (issue 22: a 400 MB .sym, under the 512 MiB limit,
// took 4.8 GB). Writes a .sym of --mb MB (FUNC records with line records and STACK CFI rules, the
// mix dump_syms writes) to a temp folder, then opens it in a child process through the same path
// the symbolizer uses (PositionedFileReader + BreakpadSymbols.open), looks up 1,000 addresses and
// CFI rules, and prints the child's peak RSS next to the file size, and the same for a file a
// quarter of the size (memory flat in the file's size: the two peaks nearly equal).
//   node --import tsx bench/breakpad-sym-memory.ts [--mb 400]
import { execFile } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PositionedFileReader } from '../src/minidump/file-reader.js';
import { BreakpadSymbols } from '../src/symbols/index.js';
import { REPO_ROOT } from '../test/helpers/wine.js';

const args = process.argv.slice(2);
if (args[0] === '--child') {
  const path = args[1] ?? '';
  const functions = Number(args[2]);
  const reader = await PositionedFileReader.open(path, { cacheBytes: 1 << 20 });
  const started = performance.now();
  const sym = await BreakpadSymbols.open(reader, path);
  const opened = performance.now() - started;
  let named = 0;
  for (let i = 0; i < 1000; i++) {
    const f = Math.floor((i * functions) / 1000);
    const rva = 0x1000 + f * 0x100 + 0x11;
    if ((await sym.lookup(rva))?.function === `function_${f}`) named++;
    if ((await sym.stack.cfiRulesAt(rva)) !== undefined) named++;
  }
  await reader.close();
  console.log(
    JSON.stringify({
      maxRssKb: process.resourceUsage().maxRSS,
      openMs: opened,
      named,
      malformed: sym.malformedLines,
    }),
  );
  process.exit(0);
}

const at = args.indexOf('--mb');
const MB = at >= 0 ? Number(args[at + 1]) : 400;

async function writeSym(path: string, bytes: number): Promise<number> {
  const out = createWriteStream(path);
  out.write(
    'MODULE windows x86_64 0123456789ABCDEF0123456789ABCDEF1 big.pdb\nFILE 0 c:\\src\\big.c\n',
  );
  let written = 0;
  let f = 0;
  while (written < bytes) {
    const rva = 0x1000 + f * 0x100;
    let block = `FUNC ${rva.toString(16)} 100 0 function_${f}\n`;
    for (let l = 0; l < 20; l++) block += `${(rva + l * 8).toString(16)} 8 ${f * 100 + l} 0\n`;
    block += `STACK CFI INIT ${rva.toString(16)} 100 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n`;
    for (let l = 1; l < 20; l++)
      block += `STACK CFI ${(rva + l).toString(16)} .cfa: $rsp ${8 + l * 8} +\n`;
    written += block.length;
    f++;
    if (!out.write(block)) await new Promise<void>((done) => out.once('drain', () => done()));
  }
  await new Promise<void>((done) => out.end(() => done()));
  return f;
}

const dir = mkdtempSync(join(tmpdir(), 'cdbh-bench-sym-'));
try {
  for (const mb of [MB / 4, MB]) {
    const path = join(dir, `big-${mb}.sym`);
    const functions = await writeSym(path, mb * 1024 * 1024);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        join(REPO_ROOT, 'bench', 'breakpad-sym-memory.ts'),
        '--child',
        path,
        String(functions),
      ],
      { cwd: REPO_ROOT },
    );
    const r = JSON.parse(stdout.trim()) as {
      maxRssKb: number;
      openMs: number;
      named: number;
      malformed: number;
    };
    console.log(
      `.sym ${(statSync(path).size / 1048576).toFixed(0)} MB (${functions} FUNC): peak RSS ${(r.maxRssKb / 1024).toFixed(0)} MB, ` +
        `open ${(r.openMs / 1000).toFixed(1)} s, ${r.named}/2000 lookups answered, ${r.malformed} malformed`,
    );
    rmSync(path, { force: true });
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
