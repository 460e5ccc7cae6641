// The fuzz tier's "a warning instead of a wrong name" check for PDBs (issue 22). A small PDB is
// built (test/helpers/pdb-builder.ts, MSF container by test/helpers/msf-writer.ts) with one big
// module of static functions (no public symbol of their own, as the compiler writes statics) and
// a few publics, then broken where a wrong name would come from: the module symbol stream's
// block list (a block listed twice: a cycle; another stream's block; a block past the end), the
// module's stream number (the DBI, the info stream, another module's stream, none), its symbol
// and line byte counts, its record lengths (0, 1, 2, odd, huge), and its C13 line blocks (lengths,
// line counts, block sizes, file ids). For every mutation each address is looked up, and the
// answer must be the unmutated PDB's (name, offset, line), or no name, or come with a warning
// (`warning` on the answer, or BadSymbolsError: "no name, and why"); never another name or other
// lines silently (no line at all is accepted only where the mutation leaves a valid PDB without
// line tables: c13Bytes = 0). FUZZ_PDB_NAMES (default 600) and FUZZ_SEED make a failure
// reproducible; FUZZ_DEBUG=1 prints one silent answer per kind of mutation.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadSymbolsError } from '../../src/errors.js';
import { BufferSource, PdbFile } from '../../src/symbols/index.js';
import type { SymbolLookup } from '../../src/symbols/lookup-types.js';
import { random } from '../helpers/dump-mutations.js';
import { writePdb, type PdbSpec, type PdbStreamLayout } from '../helpers/pdb-builder.js';
import { makeTempDir } from '../helpers/temp-dir.js';

const COUNT = Number(process.env.FUZZ_PDB_NAMES ?? 600);
const SEED = Number(process.env.FUZZ_SEED ?? 22);
const PROCS = 160;

/** f0…f159 in module `main` (0x20 bytes each, two lines), `helper` in `other`; f0, f80 public. */
function spec(edit?: PdbSpec['edit'], msf?: PdbSpec['msf']): PdbSpec {
  return {
    guid: '0123456789ABCDEF0123456789ABCDEF',
    age: 1,
    modules: [
      {
        name: 'main',
        procs: Array.from({ length: PROCS }, (_, i) => ({
          name: `f${i}`,
          rva: 0x1000 + i * 0x20,
          size: 0x20,
          lines: [
            [0, 100 + i],
            [0x10, 1000 + i],
          ] as [number, number][],
        })),
      },
      { name: 'other', procs: [{ name: 'helper', rva: 0x8000, size: 0x20, lines: [[0, 5]] }] },
    ],
    publics: [
      { name: 'f0', rva: 0x1000 },
      { name: 'f80', rva: 0x1000 + 80 * 0x20 },
      { name: 'helper', rva: 0x8000 },
    ],
    ...(edit === undefined ? {} : { edit }),
    ...(msf === undefined ? {} : { msf }),
  };
}

/** Every proc's start and middle, and helper's. */
const RVAS = [
  ...Array.from({ length: PROCS }, (_, i) => [0x1000 + i * 0x20, 0x1000 + i * 0x20 + 0x14]).flat(),
  0x8004,
];

type Answer = SymbolLookup | undefined | { error: string };

async function answers(bytes: Buffer): Promise<Answer[] | { error: string }> {
  let pdb: PdbFile;
  try {
    pdb = await PdbFile.open(new BufferSource(bytes), 'app.pdb');
  } catch (error) {
    if (error instanceof BadSymbolsError) return { error: error.message };
    throw error;
  }
  const out: Answer[] = [];
  for (const rva of RVAS) {
    try {
      out.push(await pdb.lookup(rva));
    } catch (error) {
      if (!(error instanceof BadSymbolsError)) throw error;
      out.push({ error: error.message });
    }
  }
  return out;
}

/** Offsets of the symbol records in a module stream (after the 4-byte signature). */
function recordOffsets(stream: Buffer, symBytes: number): number[] {
  const offsets: number[] = [];
  for (let at = 4; at + 4 <= symBytes; at += 2 + stream.readUInt16LE(at)) offsets.push(at);
  return offsets;
}

/** Offsets of the C13 subsections of a module stream, and of the line blocks' fields. */
function c13Offsets(stream: Buffer, c13: { at: number; length: number }): number[] {
  const offsets: number[] = [];
  for (
    let at = c13.at;
    at + 8 <= c13.at + c13.length;
    at += 8 + ((stream.readUInt32LE(at + 4) + 3) & ~3)
  ) {
    offsets.push(at);
  }
  return offsets;
}

interface Mutation {
  label: string;
  /** The result is a valid PDB without line tables (c13Bytes = 0): lines may go unsaid. */
  noLines?: boolean;
  edit?: PdbSpec['edit'];
  blocks?: (lists: number[][], layout: PdbStreamLayout) => void;
}

const HOSTILE_U16 = [0, 1, 2, 3, 5, 0x7fff, 0xfffe, 0xffff];
const HOSTILE_U32 = [0, 1, 3, 4, 7, 0xff, 0x7fffffff, 0xfffffff0, 0xffffffff];

/** One structural mutation of module `main` (index 0) chosen by `next`. */
function mutation(next: () => number): Mutation {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] as T;
  const int = (n: number) => Math.floor(next() * n);
  const family = int(7);
  if (family === 0) {
    // The module stream's block list: a block twice (cycle), another stream's, or past the end.
    const how = int(3);
    return {
      label: ['block listed twice', "another stream's block", 'block past the end'][how] ?? '',
      blocks: (lists, layout) => {
        const own = lists[layout.modules[0] ?? 0] ?? [];
        const j = int(own.length);
        if (how === 0) own[j] = own[(j + 1 + int(own.length - 1)) % own.length] ?? 0;
        else if (how === 1) own[j] = pick(lists.filter((l) => l.length > 0 && l !== own))[0] ?? 0;
        else own[j] = 0x00fffff0;
      },
    };
  }
  if (family === 1) {
    // The module entry's stream number: a fixed stream (the DBI, info, publics…), the other
    // module's stream, none, or one that does not exist.
    const stream = pick([0, 1, 2, 3, 4, 5, 6, 7, 9, 0xffff, 0x7fff]);
    return {
      label: `module stream number = ${stream}`,
      edit: (streams, layout) =>
        streams[layout.dbi]?.writeUInt16LE(stream, (layout.moduleEntries[0] ?? 0) + 34),
    };
  }
  if (family === 2) {
    // The symbol and C13 byte counts of the module entry.
    const field = pick([36, 44]);
    const delta = pick([-1, -2, -4, -40, 4, 40, 0x10000]);
    const absolute = int(3) === 0 ? pick(HOSTILE_U32) : undefined;
    return {
      noLines: field === 44 && absolute === 0,
      label: `module ${field === 36 ? 'symBytes' : 'c13Bytes'} ${absolute === undefined ? `${delta > 0 ? '+' : ''}${delta}` : `= ${absolute}`}`,
      edit: (streams, layout) => {
        const dbi = streams[layout.dbi];
        if (dbi === undefined) return;
        const at = (layout.moduleEntries[0] ?? 0) + field;
        dbi.writeUInt32LE((absolute ?? Math.max(0, dbi.readUInt32LE(at) + delta)) >>> 0, at);
      },
    };
  }
  if (family === 3 || family === 4) {
    // A symbol record's length: 0, 1, 2, odd, huge, or a few bytes off.
    const value = int(2) === 0 ? pick(HOSTILE_U16) : undefined;
    const delta = pick([-4, -2, -1, 1, 2, 4, 8]);
    return {
      label: `record length ${value === undefined ? `${delta > 0 ? '+' : ''}${delta}` : `= ${value}`}`,
      edit: (streams, layout) => {
        const stream = streams[layout.modules[0] ?? 0];
        if (stream === undefined) return;
        const at = pick(recordOffsets(stream, layout.c13[0]?.at ?? 0));
        stream.writeUInt16LE((value ?? Math.max(0, stream.readUInt16LE(at) + delta)) & 0xffff, at);
      },
    };
  }
  // A C13 line subsection: its length, or a line block's count, size or file id.
  const field = pick([4, 8 + 12, 8 + 16, 8 + 20, 0]);
  const value = pick(HOSTILE_U32);
  const name = {
    4: 'subsection length',
    20: 'file id',
    24: 'line count',
    28: 'block size',
    0: 'subsection kind',
  }[field];
  return {
    label: `C13 ${name ?? field} = ${value}`,
    edit: (streams, layout) => {
      const stream = streams[layout.modules[0] ?? 0];
      const c13 = layout.c13[0];
      if (stream === undefined || c13 === undefined) return;
      // Subsection 0 is the file checksums; the line blocks follow.
      const subsections = c13Offsets(stream, c13);
      const at = pick(field >= 20 ? subsections.slice(1) : subsections) + field;
      if (at + 4 <= stream.length) stream.writeUInt32LE(value >>> 0, at);
    },
  };
}

function shown(answer: Answer): string {
  if (answer === undefined) return 'no name';
  if ('error' in answer) return `error: ${answer.error}`;
  return `${answer.function}+0x${answer.functionOffset.toString(16)} line ${answer.line ?? '-'}${answer.warning === undefined ? '' : ` (warning: ${answer.warning})`}`;
}

describe('fuzz: a PDB broken where names come from gives the right name, none, or a warning', function () {
  this.timeout(Math.max(60_000, COUNT * 200));

  it(`${COUNT} mutations of a module symbol stream (seed ${SEED}): never another name silently`, async () => {
    const dir = makeTempDir('fuzz-pdb-names');
    const goodPath = join(dir, 'good.pdb');
    writePdb(goodPath, spec());
    const baseline = await answers(readFileSync(goodPath));
    if ('error' in baseline) throw new Error(`the unmutated PDB did not open: ${baseline.error}`);
    // The baseline names every address with its line: the mutations have something to lose.
    expect(
      baseline.every((a) => a !== undefined && !('error' in a) && a.line !== undefined),
    ).to.equal(true);

    const next = random(SEED);
    const silent: string[] = [];
    const outcomes = { same: 0, warned: 0, noName: 0, refused: 0 };
    for (let i = 0; i < COUNT; i++) {
      const m = mutation(next);
      const path = join(dir, `m${i % 4}.pdb`);
      writePdb(
        path,
        spec(
          m.edit,
          m.blocks === undefined
            ? undefined
            : { editBlockLists: (lists) => m.blocks?.(lists, LAYOUT) },
        ),
      );
      const got = await answers(readFileSync(path));
      if ('error' in got) {
        outcomes.refused++;
        continue;
      }
      got.forEach((answer, k) => {
        const want = baseline[k] as SymbolLookup;
        if (answer === undefined) return void outcomes.noName++;
        if ('error' in answer) return void outcomes.warned++;
        const sameName =
          answer.function === want.function && answer.functionOffset === want.functionOffset;
        const sameLine =
          (answer.line === want.line && answer.file === want.file) ||
          (m.noLines === true && answer.line === undefined && answer.file === undefined);
        const same = sameName && sameLine;
        if (same) return void outcomes.same++;
        if (answer.warning !== undefined) return void outcomes.warned++;
        silent.push(
          `#${i} ${m.label}: 0x${(RVAS[k] ?? 0).toString(16)} is ${shown(want)}, got ${shown(answer)}`,
        );
      });
    }
    process.stdout.write(`      outcomes per address: ${JSON.stringify(outcomes)}\n`);
    if (process.env.FUZZ_DEBUG !== undefined) {
      const byLabel = new Map<string, string>();
      for (const line of silent) byLabel.set(line.split(':')[0]?.replace(/^#\d+ /, '') ?? '', line);
      process.stdout.write(`${[...byLabel.values()].join('\n')}\n`);
    }
    expect(silent.slice(0, 20), `${silent.length} silent wrong answers`).to.deep.equal([]);
    // Every kind of outcome happened: the mutations reached the names and the lines.
    expect(outcomes.warned).to.be.greaterThan(0);
    expect(outcomes.same).to.be.greaterThan(0);
  });
});

/** The stream layout writePdb gives `spec()` (the same for every mutation: edits change bytes only). */
const LAYOUT: PdbStreamLayout = (() => {
  const path = join(makeTempDir('fuzz-pdb-layout'), 'layout.pdb');
  return writePdb(path, spec());
})();
