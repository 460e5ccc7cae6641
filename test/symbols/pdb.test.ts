// Hostile module streams and line tables in a PDB built from scratch (pdb-builder.ts, no clang or
// Wine needed): a symbol record of length 0 or past the end, a module whose symbol stream is the
// DBI stream, a stream sharing another's blocks or repeating its own (a cycle), a corrupt C13
// line block. Each is detected and said (PdbFile.warnings, and the lookup's error or warning);
// what was read whole is still used, and no address gets a neighbour's name instead of its own.
import { expect } from 'chai';
import { join } from 'node:path';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import { PdbFile, type SymbolLookup } from '../../src/symbols/index.js';
import { writePdb, type BuiltProc, type PdbSpec } from '../helpers/pdb-builder.js';
import { SAMPLE_MAIN_PROCS, samplePdbSpec } from '../helpers/sample-pdb.js';
import { makeTempDir } from '../helpers/temp-dir.js';

// Sample program (test/helpers/sample-pdb.ts): level1 (global, has a public symbol), level2
// (static: no public), and in a second object file, helper. 0x1035 is inside level2: with level2's
// record lost, the nearest public below is level1's, the wrong name the issue reports
// (`level1+0x35`).
/** Offset of level2's S_GPROC32 in the module stream: 4-byte signature, level1 (48), S_END (4). */
const LEVEL2_RECORD = 4 + 48 + 4;

function spec(edit?: PdbSpec['edit'], msf?: PdbSpec['msf'], many = false): PdbSpec {
  const extra: BuiltProc[] = many
    ? Array.from({ length: 120 }, (_, i) => ({
        name: `filler_${i}`,
        rva: 0x3000 + i * 16,
        size: 16,
      }))
    : [];
  return {
    ...samplePdbSpec([...SAMPLE_MAIN_PROCS, ...extra]),
    ...(edit === undefined ? {} : { edit }),
    ...(msf === undefined ? {} : { msf }),
  };
}

interface Outcome {
  level1?: SymbolLookup;
  level2?: SymbolLookup;
  level2Error?: string;
  helper?: SymbolLookup;
  warnings: string[];
}

async function lookups(pdbSpec: PdbSpec): Promise<Outcome> {
  const path = join(makeTempDir('pdb-hostile'), 'app.pdb');
  writePdb(path, pdbSpec);
  const reader = await PositionedFileReader.open(path);
  try {
    const pdb = await PdbFile.open(reader, 'app.pdb');
    const out: Outcome = { warnings: pdb.warnings };
    const level1 = await pdb.lookup(0x1005).catch(() => undefined);
    if (level1) out.level1 = level1;
    try {
      const level2 = await pdb.lookup(0x1035);
      if (level2) out.level2 = level2;
    } catch (error) {
      expect((error as { code?: string }).code).to.equal('BAD_SYMBOLS');
      out.level2Error = (error as Error).message;
    }
    const helper = await pdb.lookup(0x2004);
    if (helper) out.helper = helper;
    return out;
  } finally {
    await reader.close();
  }
}

const HELPER = {
  function: 'helper',
  functionOffset: 4,
  kind: 'function',
  file: 'other.c',
  line: 5,
};

describe('symbols: hostile PDB module streams and line tables', () => {
  it('a whole PDB: level2 named with its line (the baseline the cases below break)', async () => {
    const result = await lookups(spec());
    expect(result.level2).to.deep.equal({
      function: 'level2',
      functionOffset: 5,
      kind: 'function',
      file: 'main.c',
      line: 20,
    });
    expect(result.helper).to.deep.equal(HELPER);
    expect(result.warnings).to.deep.equal([]);
  });

  const broken: [string, PdbSpec, RegExp][] = [
    [
      'a symbol record of length 0',
      spec((streams, layout) => streams[layout.modules[0] ?? -1]?.writeUInt16LE(0, LEVEL2_RECORD)),
      /a symbol record of length 0 at offset 56/,
    ],
    [
      'a symbol record absurdly long',
      spec((streams, layout) =>
        streams[layout.modules[0] ?? -1]?.writeUInt16LE(0xfff0, LEVEL2_RECORD),
      ),
      /a symbol record at offset 56 claims 65520 bytes, past the end/,
    ],
    [
      "a module's symbol stream pointing at the DBI stream",
      spec((streams, layout) =>
        streams[layout.dbi]?.writeUInt16LE(layout.dbi, (layout.moduleEntries[0] ?? 0) + 34),
      ),
      /its symbol stream is stream 3 \(the DBI stream\)/,
    ],
    [
      "a module stream on the DBI stream's blocks",
      spec(undefined, {
        editBlockLists: (lists) => {
          lists[8] = [lists[3]?.[0] ?? 0];
        },
      }),
      /stream 8 shares block \d+ with stream 3/,
    ],
    [
      'a module stream listing one of its blocks twice (a cycle)',
      spec(
        undefined,
        {
          editBlockLists: (lists) => {
            const list = lists[8] ?? [];
            expect(list.length).to.be.greaterThan(1);
            list[1] = list[0] ?? 0;
          },
        },
        true,
      ),
      /stream 8 lists block \d+ twice \(a cycle\)/,
    ],
  ];
  for (const [name, pdbSpec, why] of broken) {
    it(`${name}: detected and said, no neighbour's name, the rest still named`, async () => {
      const result = await lookups(pdbSpec);
      expect(result.level2, JSON.stringify(result.level2)).to.equal(undefined);
      expect(result.level2Error).to.match(
        /no name for \+0x1035: the symbols of main\.obj were read only in part/,
      );
      expect(result.level2Error).to.match(why);
      expect(
        result.warnings.some((w) => why.test(w)),
        result.warnings.join('\n'),
      ).to.equal(true);
      // The other module is whole: still named with its line.
      expect(result.helper).to.deep.equal(HELPER);
    });
  }

  it('a length-0 record after level1: level1, read whole before it, keeps its name and line', async () => {
    const result = await lookups(
      spec((streams, layout) => streams[layout.modules[0] ?? -1]?.writeUInt16LE(0, LEVEL2_RECORD)),
    );
    expect(result.level1).to.include({ function: 'level1', line: 10 });
  });

  it('a corrupt C13 line block: the name stays, the missing line is said', async () => {
    const result = await lookups(
      spec((streams, layout) => {
        const c13 = layout.c13[0];
        // Checksums subsection (16 bytes), level1's lines (48), then level2's: header 8 + 12,
        // then its file block: fileId, count, blockSize (+8).
        if (c13 !== undefined) {
          streams[layout.modules[0] ?? -1]?.writeUInt32LE(0xffff, c13.at + 16 + 48 + 8 + 12 + 8);
        }
      }),
    );
    expect(result.level2).to.deep.include({ function: 'level2', functionOffset: 5 });
    expect(result.level2?.line).to.equal(undefined);
    expect(result.level2?.warning).to.match(
      /^main\.obj: no line: a line block at offset \d+ claims 1 lines/,
    );
    expect(result.level1).to.include({ function: 'level1', line: 10 });
    expect(result.warnings.some((w) => /main\.obj: a line block/.test(w))).to.equal(true);
  });

  // Found by test/fuzz/pdb-names.fuzz.ts: byte counts and line blocks that lose names or lines
  // with no word, each now said.
  const entryField = (offset: number, value: number): PdbSpec =>
    spec((streams, layout) =>
      streams[layout.dbi]?.writeUInt32LE(value, (layout.moduleEntries[0] ?? 0) + offset),
    );
  const noName: [string, PdbSpec, RegExp][] = [
    [
      'symbol bytes short of a signature',
      entryField(36, 3),
      /3 symbol bytes, short of a signature/,
    ],
    [
      'symbol bytes that cut a record',
      entryField(36, 7),
      /3 bytes after the last whole symbol record/,
    ],
    [
      'no stream, yet bytes of symbols claimed',
      spec((streams, layout) =>
        streams[layout.dbi]?.writeUInt16LE(0xffff, (layout.moduleEntries[0] ?? 0) + 34),
      ),
      /no symbol stream, though it claims \d+ bytes/,
    ],
  ];
  for (const [name, pdbSpec, why] of noName) {
    it(`${name}: no neighbour's name for level2, and why`, async () => {
      const result = await lookups(pdbSpec);
      expect(result.level2, JSON.stringify(result.level2)).to.equal(undefined);
      expect(result.level2Error).to.match(why);
      expect(result.helper).to.deep.equal(HELPER);
    });
  }

  it('only the signature left, lines still there: the public name below is said to be a guess', async () => {
    const result = await lookups(entryField(36, 4));
    // level1's public names 0x1035 as level1+0x35: said, never silent.
    expect(result.level2).to.include({ function: 'level1', kind: 'public' });
    expect(result.level2?.warning).to.match(/main\.obj: .*maybe a neighbour's/);
  });

  const c13Field = (name: string, at: (c13At: number) => number, value: number, why: RegExp) =>
    it(`a C13 ${name}: level2's line dropped and said, not another line`, async () => {
      const result = await lookups(
        spec((streams, layout) => {
          const c13 = layout.c13[0];
          if (c13 !== undefined) streams[layout.modules[0] ?? -1]?.writeUInt32LE(value, at(c13.at));
        }),
      );
      expect(result.level2).to.deep.include({ function: 'level2', functionOffset: 5 });
      expect(result.level2?.line).to.equal(undefined);
      expect(result.level2?.warning).to.match(why);
    });
  // level2's subsection: checksums (16) + level1's lines (48); its header 8 + 12, then fileId,
  // count, blockSize.
  c13Field(
    'line count that disagrees with the block size',
    (a) => a + 16 + 48 + 8 + 12 + 4,
    0,
    /claims 0 lines in 20 bytes/,
  );
  c13Field(
    'file id the checksums do not list',
    (a) => a + 16 + 48 + 8 + 12,
    40,
    /names file 40, which the checksums do not list/,
  );
  c13Field('subsection of an unknown kind', (a) => a + 16 + 48, 0x33, /unknown kind 0x33/);
});
