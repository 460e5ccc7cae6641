// Benchmark: symbol downloads bounded on hostile servers (issue 22). Three runs of
// `analyze --engine builtin --symbols srv*CACHE*http://127.0.0.1:PORT`, each in a child process:
//  1. 16 dumps (a real symcrash crash with ~10 modules, copied) against a server whose every body
//     never ends: each download streams to a .part file, is cut at the limit and deleted. The
//     copies share one identity for symcrash.exe, so they share its downloads;
//  1b. the same 16 dumps, each with an identity of its own for symcrash.exe (the module the
//     exception is in): 16 different PDBs asked for at once, 16 endless bodies in parallel;
//  2. one dump against a server holding a cabinet bomb for the program's PDB (a ~1.8 MB `.pd_`
//     that expands to 1,000 MB): refused on its header (no PDB of a small module is that big).
// Printed per run: the child's peak RSS, the cache's peak size while it ran (sampled every 20 ms),
// what is left in the cache afterwards (files, .part files) and the reason the records give.
// Bounds from the issue: peak memory ≤ 300 MB, cache growth bounded by --symbol-max-size,
// nothing left behind. (Before the fix: 6.7-7.4 GB for run 1; a 1,000 MB file kept per module
// for run 2. Run 1b before downloads took turns (symbols/supplier/download-slots.ts): 968 MB of
// parts in the cache at once, 16 × the limit; now at most 4 × the limit.)
//   node --import tsx bench/symbols-hostile.ts [--max-mb 64] [--jobs 16]
// Printed for each run: peak RSS, cache peak and what is left, and which distinct files the
// server was asked for (16 different symcrash.pdb ids in run 1b).
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { writeCabBomb } from '../test/helpers/cab-writer.js';
import { startSymbolServer } from '../test/helpers/symbol-server.js';
import { REPO_ROOT } from '../test/helpers/wine.js';
import { symcrashLibsDump } from './symcrash-dump.js';

const args = process.argv.slice(2);
const option = (name: string, fallback: number) => {
  const at = args.indexOf(name);
  return at >= 0 && args[at + 1] !== undefined ? Number(args[at + 1]) : fallback;
};
const MAX_BYTES = option('--max-mb', 64) * 1024 * 1024;
const JOBS = option('--jobs', 16);
/** The GUID number of the identity the copies share (runs 1 and 2). */
const SHARED = 0x100;
const { source } = await symcrashLibsDump();

function files(dir: string): { path: string; size: number }[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => {
      const path = join(e.parentPath, e.name);
      try {
        return { path, size: statSync(path).size };
      } catch {
        return { path, size: 0 }; // renamed or deleted while we looked
      }
    });
}

/**
 * The dump with symcrash.exe given a CodeView (RSDS) record naming `symcrash.pdb` with a GUID of
 * its own (`n`; debug id debugIdFor(n)), appended at the end of the file. The minidump layout
 * (https://learn.microsoft.com/windows/win32/api/minidumpapiset/ns-minidumpapiset-minidump_module):
 * the ModuleList stream (type 4) is a count and 108-byte entries; CvRecord (size, RVA) at +76.
 * Wine writes no CodeView records, so without this the identity comes from the image on disk,
 * which the child's empty environment may not find (then nothing is downloaded at all).
 */
function withOwnPdb(dump: Buffer, n: number): Buffer {
  const streams = dump.readUInt32LE(8);
  const directory = dump.readUInt32LE(12);
  let list = -1;
  for (let i = 0; i < streams; i++) {
    if (dump.readUInt32LE(directory + i * 12) === 4)
      list = dump.readUInt32LE(directory + i * 12 + 8);
  }
  if (list < 0) throw new Error('no ModuleList stream');
  const rsds = Buffer.alloc(4 + 16 + 4 + 'symcrash.pdb\0'.length);
  rsds.write('RSDS', 0, 'latin1');
  rsds.writeUInt32LE(0x5eed0000 + n, 4); // GUID Data1: one per copy
  rsds.writeUInt32LE(1, 20); // age
  rsds.write('symcrash.pdb\0', 24, 'latin1');
  const at = (dump.length + 3) & ~3;
  const out = Buffer.concat([dump, Buffer.alloc(at - dump.length), rsds]);
  for (let i = 0; i < dump.readUInt32LE(list); i++) {
    const entry = list + 4 + i * 108;
    const nameRva = dump.readUInt32LE(entry + 20);
    const name = dump.toString('utf16le', nameRva + 4, nameRva + 4 + dump.readUInt32LE(nameRva));
    if (!/symcrash\.exe$/i.test(name)) continue;
    out.writeUInt32LE(rsds.length, entry + 76);
    out.writeUInt32LE(at, entry + 80);
    return out;
  }
  throw new Error('no symcrash.exe module in the dump');
}

/** The debug id withOwnPdb(dump, n) gives symcrash.pdb: GUID 5EED00nn-0000-…, age 1. */
function debugIdFor(n: number): string {
  return `${(0x5eed0000 + n).toString(16).toUpperCase()}${'0'.repeat(24)}1`;
}

/** `pdbs`: 'shared' gives every copy the same identity, 'own' each copy its own. */
async function run(
  label: string,
  dumps: number,
  mode: 'endless' | 'serve',
  store: string,
  pdbs: 'shared' | 'own',
) {
  const work = mkdtempSync(join(tmpdir(), 'cdbh-bench-hostile-'));
  const server = await startSymbolServer(store, mode);
  try {
    const input = join(work, 'in');
    mkdirSync(input);
    // Wine's dumps carry no CodeView records: every copy's PDB identity comes from the one
    // image, so the 16 dumps wait on the same downloads (shared in flight) while they run.
    const original = readFileSync(source);
    for (let i = 0; i < dumps; i++) {
      writeFileSync(join(input, `d${i}.dmp`), withOwnPdb(original, pdbs === 'own' ? i : SHARED));
    }
    const cache = join(work, 'cache');
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(
        peak,
        files(cache).reduce((n, f) => n + f.size, 0),
      );
    }, 20);
    const started = performance.now();
    let stdout: string;
    try {
      ({ stdout } = await promisify(execFile)(
        process.execPath,
        [
          '--import',
          'tsx',
          join(REPO_ROOT, 'bench', 'symbols-hostile-child.ts'),
          input,
          join(work, 'out'),
          `srv*${cache}*${server.url}`,
          String(MAX_BYTES),
          '60000',
          String(JOBS),
        ],
        { cwd: REPO_ROOT, maxBuffer: 1 << 20 },
      ));
    } finally {
      clearInterval(sampler);
    }
    const seconds = (performance.now() - started) / 1000;
    const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
      dumps: number;
      maxRssKb: number;
      serversDown: number;
      reason?: string;
    };
    const left = files(cache);
    console.log(
      `${label}: ${result.dumps} dumps, ${seconds.toFixed(1)} s, peak RSS ${(result.maxRssKb / 1024).toFixed(0)} MB, ` +
        `cache peak ${(peak / 1048576).toFixed(1)} MB (limit ${MAX_BYTES / 1048576} MB per file, ${JOBS} jobs), ` +
        `left in cache: ${left.length} files (${left.filter((f) => f.path.endsWith('.part')).length} .part), ` +
        `requests ${server.requests.length}`,
    );
    console.log(`  reason in the records: ${result.reason ?? '(none)'}`);
    const asked = new Set(
      server.requests.filter((r) => /symcrash\.pd/i.test(r)).map((r) => r.split('/')[2]),
    );
    console.log(`  distinct symcrash.pdb ids asked for: ${asked.size}`);
  } finally {
    await server.close();
    rmSync(work, { recursive: true, force: true });
  }
}

// 1. Bodies that never end.
const empty = mkdtempSync(join(tmpdir(), 'cdbh-bench-store-'));
await run('endless server, one shared PDB', 16, 'endless', empty, 'shared');
await run('endless server, 16 different PDBs', 16, 'endless', empty, 'own');
rmSync(empty, { recursive: true, force: true });

// 2. A cabinet bomb where the program's PDB should be.
const debugId = debugIdFor(SHARED);
const bombStore = mkdtempSync(join(tmpdir(), 'cdbh-bench-bomb-'));
mkdirSync(join(bombStore, 'symcrash.pdb', debugId), { recursive: true });
const bomb = writeCabBomb('symcrash.pdb', 1000 << 20);
writeFileSync(join(bombStore, 'symcrash.pdb', debugId, 'symcrash.pd_'), bomb);
console.log(`cabinet bomb: ${(bomb.length / 1048576).toFixed(2)} MB .pd_ expanding to 1000 MB`);
await run('cabinet bomb', 1, 'serve', bombStore, 'shared');
rmSync(bombStore, { recursive: true, force: true });
