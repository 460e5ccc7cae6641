// The builtin engine's record frames (src/workflows/analyze/builtin-record.ts) on real Wine dumps
// of the -O2 clang + lld program test/targets/pdb/inlined.c, walked with its image and PDB: the
// inlined calls the PDB's S_INLINESITE records describe come out as WinDbg shows them, an
// `(Inline Function)` row per inlined call, innermost first, before the function they were
// inlined into, each with its own name and source line, and they take part in the signature.
import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processDump } from '../../../src/processor/process-dump.js';
import { createSigner } from '../../../src/report/analyze/signature.js';
import { stackJson } from '../../../src/report/inspect/inspect-stacks.js';
import { stackLines } from '../../../src/cli/commands/inspect-stacks-text.js';
import { createSymbolSupplier } from '../../../src/symbols/supplier/symbol-supplier.js';
import { builtinFields } from '../../../src/workflows/analyze/builtin-record.js';
import { realDump, type DumpKind } from '../../helpers/dump-factory.js';
import { markerLine, pdbTargetReady } from '../../helpers/pdb-targets.js';
import { hasPdbUtil, pdbUtilInlines } from '../../helpers/pdbutil.js';
import { makeTempDir } from '../../helpers/temp-dir.js';
import { TARGETS_DIR, wineRigReady } from '../../helpers/wine.js';

async function walked(kind: DumpKind, symbols: boolean | string) {
  const dir = makeTempDir('inline-record');
  const supplier = await createSymbolSupplier({
    ...(symbols === false ? {} : { symbolPath: symbols === true ? TARGETS_DIR : symbols }),
    imagePaths: [TARGETS_DIR],
    recordedPaths: false,
    symbolCacheDir: join(dir, 'cache'),
    env: { HOME: dir },
  });
  try {
    const state = await processDump(await realDump(kind), { threads: 'exception', supplier });
    if (!state.ok) throw new Error(state.error.message);
    return state;
  } finally {
    await supplier.close();
  }
}

/** `function line [inline]` per frame, the source line checked against the marker's. */
function rows(frames: ReturnType<typeof builtinFields>['frames']): string[] {
  return frames.map((f) => {
    const line = /@ (\d+)$/.exec(f.source ?? '')?.[1] ?? '-';
    return `${f.function ?? f.offset ?? '?'} ${line}${f.inline === true ? ' inline' : ''}`;
  });
}

const line = (marker: string) => markerLine('inlined.c', marker);

describe('analyze records: inline frames of an -O2 clang + lld program (builtin engine)', function () {
  this.timeout(120_000);
  before(function () {
    // npm run setup not run (Wine, the clang-built programs, llvm-pdbutil)
    if (!wineRigReady() || !pdbTargetReady('inlined') || !hasPdbUtil()) this.skip();
  });

  it('a call made from inlined code: crash_store, then inner_step and middle_step inline, then run_chain', async () => {
    const state = await walked('inline-call', true);
    const fields = builtinFields(state);
    expect(rows(fields.frames).slice(0, 5)).to.deep.equal([
      `crash_store ${line('CRASH-LINE')}`,
      `inner_step ${line('INNER-CALL')} inline`,
      `middle_step ${line('MIDDLE-CALL')} inline`,
      `run_chain ${line('OUTER-CALL')}`,
      `main ${line('MAIN-CALL')}`,
    ]);
    // The inline rows share the address, stack pointer and trust of the frame they are in.
    const [, inner, middle, chain] = fields.frames;
    for (const f of [inner, middle]) {
      expect(f).to.include({
        module: 'inlined',
        address: chain?.address,
        stackPointer: chain?.stackPointer,
        moduleOffset: chain?.moduleOffset,
        trust: chain?.trust,
      });
    }
    expect(chain?.inline).to.equal(undefined);
    // They are what the user sees, so they are what the bucket says (docs/bucketing.md).
    expect(createSigner().sign(fields).signature).to.equal(
      '0xc0000005 write | inlined!crash_store | inlined!inner_step | inlined!middle_step',
    );
    // inspect's JSON numbers them as frames, and its text prints them as cdb's `k` does.
    const thread = state.threads.find((t) => t.faulting)?.callStack;
    const stack = stackJson(thread!);
    expect(stack.frames.slice(0, 4).map((f) => [f.index, f.function, f.inline])).to.deep.equal([
      [0, 'crash_store', undefined],
      [1, 'inner_step', true],
      [2, 'middle_step', true],
      [3, 'run_chain', undefined],
    ]);
    const text = stackLines(stack, true);
    expect(text[2]).to.match(
      /^01 \(Inline Function\) --------`-------- inlined!inner_step\+0x[0-9a-f]+ \[.*inlined\.c @ \d+\] {2}\[cfi\]$/,
    );
  });

  it('a crash inside inlined code: frame 0 is the innermost inline frame', async () => {
    const fields = builtinFields(await walked('inline-top', true));
    expect(rows(fields.frames).slice(0, 4)).to.deep.equal([
      `top_inner ${line('TOP-CRASH-LINE')} inline`,
      `top_middle ${line('TOP-MIDDLE-CALL')} inline`,
      `run_top ${line('TOP-OUTER-CALL')}`,
      `main ${line('MAIN-TOP-CALL')}`,
    ]);
    expect(fields.frames[0]?.trust).to.equal('exception');
    expect(createSigner().sign(fields).signature).to.equal(
      '0xc0000005 write | inlined!top_inner | inlined!top_middle | inlined!run_top',
    );
  });

  it('C++: a method inlined through a namespaced function, named as WinDbg names them', async () => {
    const fields = builtinFields(await walked('inline-method', true));
    const cpp = (marker: string) => markerLine('inlined-method.cpp', marker);
    expect(rows(fields.frames).slice(0, 4)).to.deep.equal([
      `shapes::Counter::add ${cpp('METHOD-CRASH-LINE')} inline`,
      `shapes::bump ${cpp('BUMP-CALL')} inline`,
      `run_method ${cpp('METHOD-OUTER-CALL')}`,
      `main ${line('MAIN-METHOD-CALL')}`,
    ]);
    expect(createSigner().sign(fields).signature).to.equal(
      '0xc0000005 write | inlined!shapes::Counter::add | inlined!shapes::bump | inlined!run_method',
    );
  });

  it('with an inline site broken in the PDB: no inline rows there, said in the record, walk whole', async () => {
    // The inner_step site's first annotation byte becomes the reserved 0xE0 prefix (the record
    // found by its kind and parent, as test/symbols/pdb-inlines.test.ts does).
    const facts = pdbUtilInlines(join(TARGETS_DIR, 'inlined.pdb'));
    const site = facts.sites.find((s) => s.name === 'inner_step');
    const bytes = readFileSync(join(TARGETS_DIR, 'inlined.pdb'));
    const head = Buffer.alloc(6);
    head.writeUInt16LE(0x114d, 0);
    head.writeUInt32LE(site?.parent ?? 0, 2);
    const at = bytes.indexOf(head);
    expect(at).to.be.greaterThan(0);
    bytes[at + 14] = 0xe0;
    const store = makeTempDir('inline-broken');
    writeFileSync(join(store, 'inlined.pdb'), bytes);
    const state = await walked('inline-call', store);
    const fields = builtinFields(state);
    expect(rows(fields.frames).slice(0, 3)).to.deep.equal([
      `crash_store ${line('CRASH-LINE')}`,
      `run_chain ${line('OUTER-CALL')}`,
      `main ${line('MAIN-CALL')}`,
    ]);
    const status = state.symbols?.find((m) => m.module === 'inlined.exe');
    expect(status?.status).to.equal('loaded');
    expect(status?.reason).to.match(
      /lookup failed: .*run_chain: inline frames: inline site at offset \d+: a cut or invalid compressed number at annotation byte 0/,
    );
  });

  it('without the PDB: no inline rows, and the bucket of module offsets it always had', async () => {
    const fields = builtinFields(await walked('inline-call', false));
    expect(fields.frames.some((f) => f.inline === true)).to.equal(false);
    expect(createSigner().sign(fields).signature).to.match(
      /^0xc0000005 write \| inlined\+0x[0-9a-f]+ \| inlined\+0x[0-9a-f]+ \| inlined\+0x[0-9a-f]+$/,
    );
  });
});
