// Inline frames from a real PDB (src/symbols/pdb-inlines.ts through PdbFile.inlinesAt): lld's PDB
// of test/targets/pdb/inlined.c built at -O2, checked at every byte of every procedure with inline
// sites against an independent reading, LLVM's llvm-pdbutil (`dump --symbols` decodes the sites'
// annotations and names each inlinee from the IPI stream; `dump --il` gives each inlinee's first
// line), and against the program's source for the call lines. Then the same PDB with one site's
// annotations broken: a clear error for that procedure, nothing thrown past the reader's caller.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PositionedFileReader } from '../../src/minidump/file-reader.js';
import { PdbFile } from '../../src/symbols/index.js';
import { hasPdbUtil, pdbUtilFunctionIds, pdbUtilInlines } from '../helpers/pdbutil.js';
import { markerLine, pdbPathOf, pdbTargetReady } from '../helpers/pdb-targets.js';
import { makeTempDir } from '../helpers/temp-dir.js';

async function withPdb<T>(path: string, use: (pdb: PdbFile) => Promise<T>): Promise<T> {
  const reader = await PositionedFileReader.open(path);
  try {
    return await use(await PdbFile.open(reader, 'inlined.pdb'));
  } finally {
    await reader.close();
  }
}

describe('symbols: inline frames from a real -O2 lld PDB', function () {
  let facts: ReturnType<typeof pdbUtilInlines>;
  let qualified: Map<number, string>;
  before(function () {
    if (!pdbTargetReady('inlined') || !hasPdbUtil()) this.skip(); // build-pdb-targets.sh, llvm
    facts = pdbUtilInlines(pdbPathOf('inlined'));
    qualified = pdbUtilFunctionIds(pdbPathOf('inlined'));
  });

  it('finds at every address the inline chain llvm-pdbutil decodes, names and lines', async () => {
    const names = facts.sites.map((s) => s.name);
    expect(names).to.include.members(['middle_step', 'inner_step', 'top_middle', 'top_inner']);
    const withSites = facts.procs.filter((p) =>
      facts.sites.some(
        (s) =>
          s.module === p.module &&
          s.ranges.some((r) => r.start >= p.rva && r.start < p.rva + p.size),
      ),
    );
    expect(withSites.map((p) => p.name)).to.include.members(['run_chain', 'run_top', 'run_method']);
    // C++: a method (LF_MFUNC_ID, named with its class from the TPI) and a namespaced function.
    expect([...qualified.values()]).to.include.members(['shapes::Counter::add', 'shapes::bump']);
    let compared = 0;
    await withPdb(pdbPathOf('inlined'), async (pdb) => {
      for (const proc of withSites) {
        const sites = facts.sites.filter((s) => s.module === proc.module);
        const byOffset = new Map(sites.map((s) => [s.offset, s]));
        for (let rva = proc.rva; rva < proc.rva + proc.size; rva++) {
          // llvm-pdbutil's side: the deepest site holding rva, then its parents.
          const holds = (s: (typeof sites)[number]) =>
            s.ranges.find((r) => rva >= r.start && rva < r.end);
          const chains = sites
            .filter((s) => holds(s) !== undefined)
            .map((s) => {
              const chain = [s];
              for (let p = byOffset.get(s.parent); p !== undefined; p = byOffset.get(p.parent)) {
                chain.push(p);
              }
              return chain;
            });
          const deepest = chains.sort((a, b) => b.length - a.length)[0] ?? [];
          const expected = deepest.map((s) => {
            const first = facts.inlinees.get(`${s.module}:${s.inlinee}`);
            // llvm-pdbutil prints the bare name beside the site; the qualified one from its ids.
            const name = qualified.get(s.inlinee) ?? '?';
            expect(name.endsWith(s.name)).to.equal(true);
            return `${name} ${first?.file ?? '?'}:${(first?.line ?? 0) + (holds(s)?.lineDelta ?? 0)}`;
          });
          const ours = (await pdb.inlinesAt(rva)).map((f) => `${f.function} ${f.file}:${f.line}`);
          expect(ours, `rva 0x${rva.toString(16)} in ${proc.name}`).to.deep.equal(expected);
          compared += expected.length;
        }
      }
      expect(pdb.warnings).to.deep.equal([]);
    });
    expect(compared).to.be.greaterThan(20);
  });

  it("puts each inline frame at its call's line, and the procedure at the outermost call", async () => {
    const chain = facts.procs.find((p) => p.name === 'run_chain');
    const inner = facts.sites.find((s) => s.name === 'inner_step');
    const at = (inner?.ranges[0]?.start ?? 0) + 1;
    await withPdb(pdbPathOf('inlined'), async (pdb) => {
      const frames = await pdb.inlinesAt(at);
      expect(frames.map((f) => [f.function, f.line])).to.deep.equal([
        ['inner_step', markerLine('inlined.c', 'INNER-CALL')],
        ['middle_step', markerLine('inlined.c', 'MIDDLE-CALL')],
      ]);
      expect(frames[0]?.file).to.match(/inlined\.c$/);
      const proc = await pdb.lookup(at);
      expect(proc).to.include({
        function: 'run_chain',
        line: markerLine('inlined.c', 'OUTER-CALL'),
      });
      expect(proc?.functionOffset).to.equal(at - (chain?.rva ?? 0));
      // Outside every inlined range and in a procedure without sites: none.
      expect(await pdb.inlinesAt(chain?.rva ?? 0)).to.deep.equal([]);
      const store = facts.procs.find((p) => p.name === 'crash_store');
      expect(await pdb.inlinesAt(store?.rva ?? 0)).to.deep.equal([]);
    });
  });

  it('reads inline records only for the procedure asked about, and only when asked', async () => {
    const inner = facts.sites.find((s) => s.name === 'inner_step');
    const at = inner?.ranges[0]?.start ?? 0;
    const reader = await PositionedFileReader.open(pdbPathOf('inlined'), { cacheBytes: 0 });
    try {
      const pdb = await PdbFile.open(reader, 'inlined.pdb');
      await pdb.lookup(at);
      const beforeInlines = reader.bytesRead;
      expect((await pdb.inlinesAt(at)).length).to.equal(2);
      const forInlines = reader.bytesRead - beforeInlines;
      // The site records of one procedure, the id stream's header and one stretch of it: a few
      // blocks, never the whole file.
      expect(forInlines).to.be.greaterThan(0);
      expect(forInlines).to.be.lessThan(readFileSync(pdbPathOf('inlined')).length / 4);
    } finally {
      await reader.close();
    }
  });

  it('gives a clear error for broken annotations, and keeps the procedure name', async () => {
    const site = facts.sites.find((s) => s.name === 'inner_step');
    expect(site).to.not.equal(undefined);
    // The record in the file: length, S_INLINESITE, parent, end, inlinee (unique bytes), then its
    // annotations; the first annotation byte becomes the reserved 0xE0 prefix.
    const bytes = readFileSync(pdbPathOf('inlined'));
    const head = Buffer.alloc(6);
    head.writeUInt16LE(0x114d, 0);
    head.writeUInt32LE(site?.parent ?? 0, 2);
    const at = bytes.indexOf(head);
    expect(at, 'the S_INLINESITE record in the file').to.be.greaterThan(0);
    expect(bytes.indexOf(head, at + 1)).to.equal(-1);
    bytes[at + 14] = 0xe0;
    const broken = join(makeTempDir('pdb-inlines'), 'inlined.pdb');
    writeFileSync(broken, bytes);
    const rva = (site?.ranges[0]?.start ?? 0) + 1;
    await withPdb(broken, async (pdb) => {
      expect((await pdb.lookup(rva))?.function).to.equal('run_chain');
      let error: unknown;
      await pdb.inlinesAt(rva).catch((e: unknown) => (error = e));
      expect((error as { code?: string }).code).to.equal('BAD_SYMBOLS');
      expect((error as Error).message).to.match(
        /inlined\.pdb: .*inlined.*\.o: run_chain: inline frames: inline site at offset \d+: a cut or invalid compressed number at annotation byte 0/,
      );
      // Other procedures' inline frames are still read.
      const top = facts.sites.find((s) => s.name === 'top_inner');
      const frames = await pdb.inlinesAt(top?.ranges[0]?.start ?? 0);
      expect(frames.map((f) => f.function)).to.deep.equal(['top_inner', 'top_middle']);
    });
  });
});
