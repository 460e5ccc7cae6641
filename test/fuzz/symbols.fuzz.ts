// The fuzz tier for symbol files (issue 22): a small PDB (test/helpers/pdb-builder.ts) and a small
// Breakpad .sym (the documented record format,
// https://chromium.googlesource.com/breakpad/breakpad/+/HEAD/docs/symbol_files.md), both built
// here, mutated with the seeded generator of the dump fuzzing (bytes flipped, u32 fields set to
// hostile values, files cut short) plus, for the .sym, line-level edits (lines dropped, repeated,
// numbers made huge). Each copy is opened by the pure readers and looked up at every function's
// addresses. Whatever the mutation: no error other than the project's BadSymbolsError, every
// file done within a hang guard, bounded warnings, and the process's peak memory under the bound.
// FUZZ_SYMBOLS (default 1,000 of each) and FUZZ_SEED make a failure reproducible. No Wine.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BadSymbolsError } from '../../src/errors.js';
import { BreakpadSymbols, BufferSource, PdbFile } from '../../src/symbols/index.js';
import { mutate, random } from '../helpers/dump-mutations.js';
import { writePdb } from '../helpers/pdb-builder.js';
import { samplePdbSpec } from '../helpers/sample-pdb.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const COUNT = Number(process.env.FUZZ_SYMBOLS ?? 1000);
const SEED = Number(process.env.FUZZ_SEED ?? 22);
/** Peak RSS of the whole test process (mocha included), MB. */
const PEAK_MB = 600;
/** A hang guard per file, not a speed figure: a good file takes well under a millisecond. */
const PER_FILE_MS = 5_000;
/** The readers keep at most a few dozen warnings per file. */
const MAX_WARNINGS = 100;

const SPEC = samplePdbSpec();
const RVAS = [0x1000, 0x1005, 0x1035, 0x106f, 0x2004, 0x3000];

const SYM = `MODULE windows x86 0123456789ABCDEF0123456789ABCDEF1 app.pdb
INFO CODE_ID 5F3A1B2C4000 app.dll
FILE 0 c:\\src\\app.c
INLINE_ORIGIN 0 inlined_helper
FUNC 1000 30 0 level1
INLINE 0 12 0 0 1010 8
1000 10 10 0
1010 20 11 0
FUNC 1030 40 0 level2
1030 40 20 0
FUNC m 2000 20 4 helper
2000 20 5 0
PUBLIC 2100 0 public_only
STACK WIN 4 1000 30 5 3 8 4 10 0 1 $T0 $ebp = $eip $T0 4 + ^ =
STACK CFI INIT 1000 30 .cfa: $esp 4 + .ra: .cfa 4 - ^
`;

/** Line-level edits of a .sym: a line dropped or repeated, a number made huge or negative. */
function mutateLines(text: string, next: () => number): { bytes: Buffer; label: string } {
  const lines = text.split('\n');
  const pick = (n: number): number => Math.floor(next() * n);
  const at = pick(lines.length);
  const kind = pick(3);
  if (kind === 0) {
    lines.splice(at, 1);
    return { bytes: Buffer.from(lines.join('\n')), label: `drop line ${at}` };
  }
  if (kind === 1) {
    const copies = 1 + pick(2000);
    const copy = Array.from({ length: copies }, () => lines[at] ?? '');
    lines.splice(at, 0, copy.join('\n'));
    return { bytes: Buffer.from(lines.join('\n')), label: `line ${at} x${copies}` };
  }
  const hostile = ['ffffffffffffffff', '-1', '0', '7fffffff', '1'.repeat(80), ''];
  const value = hostile[pick(hostile.length)] ?? '';
  const words = (lines[at] ?? '').split(' ');
  words[pick(words.length)] = value;
  lines[at] = words.join(' ');
  return { bytes: Buffer.from(lines.join('\n')), label: `line ${at} field = "${value}"` };
}

/** Our error for a bad file is expected; anything else is a bug of the reader. */
function expectOurs(error: unknown, label: string): void {
  expect(error, `${label}: ${String(error)}`).to.be.instanceOf(BadSymbolsError);
}

describe('fuzz: mutated PDB and Breakpad .sym through the symbol readers', function () {
  this.timeout(Math.max(60_000, COUNT * 2 * PER_FILE_MS));

  it(`${COUNT} mutated PDBs (seed ${SEED}): our error or a bounded answer, never a crash`, async () => {
    const path = join(makeTempDir('fuzz-pdb'), 'app.pdb');
    writePdb(path, SPEC);
    const good = readFileSync(path);
    const next = random(SEED);
    let opened = 0;
    for (let i = 0; i < COUNT; i++) {
      const { bytes, label } = mutate(good, next);
      const start = performance.now();
      let pdb: PdbFile;
      try {
        pdb = await PdbFile.open(new BufferSource(bytes), 'app.pdb');
      } catch (error) {
        expectOurs(error, `#${i} ${label} (open)`);
        continue;
      }
      opened++;
      for (const rva of RVAS) {
        try {
          const hit = await pdb.lookup(rva);
          if (hit) expect(hit.function.length, `#${i} ${label}`).to.be.below(64 * 1024);
        } catch (error) {
          expectOurs(error, `#${i} ${label} (lookup 0x${rva.toString(16)})`);
        }
      }
      expect(pdb.warnings.length, `#${i} ${label}`).to.be.at.most(MAX_WARNINGS);
      expect(performance.now() - start, `#${i} ${label}: hang guard`).to.be.below(PER_FILE_MS);
    }
    // The mutations must leave some files readable, or the lookups were never fuzzed.
    expect(opened, 'PDBs that still opened').to.be.greaterThan(COUNT / 10);
    expect(process.resourceUsage().maxRSS / 1024, 'peak RSS, MB').to.be.below(PEAK_MB);
  });

  it(`${COUNT} mutated .sym files (seed ${SEED}): our error or a bounded answer, never a crash`, async () => {
    const good = Buffer.from(SYM);
    const next = random(SEED + 1);
    let named = 0;
    for (let i = 0; i < COUNT; i++) {
      const { bytes, label } = i % 2 === 0 ? mutate(good, next) : mutateLines(SYM, next);
      const start = performance.now();
      let sym: BreakpadSymbols;
      try {
        sym = await BreakpadSymbols.open(new BufferSource(bytes), 'app.sym');
      } catch (error) {
        expectOurs(error, `#${i} ${label} (open)`);
        continue;
      }
      for (const rva of RVAS) {
        try {
          const hit = await sym.lookup(rva);
          if (hit) {
            named++;
            expect(hit.function.length, `#${i} ${label}`).to.be.below(64 * 1024);
          }
        } catch (error) {
          expectOurs(error, `#${i} ${label} (lookup 0x${rva.toString(16)})`);
        }
      }
      expect(performance.now() - start, `#${i} ${label}: hang guard`).to.be.below(PER_FILE_MS);
    }
    expect(named, 'lookups that still found a name').to.be.greaterThan(COUNT);
    expect(process.resourceUsage().maxRSS / 1024, 'peak RSS, MB').to.be.below(PEAK_MB);
  });
});
