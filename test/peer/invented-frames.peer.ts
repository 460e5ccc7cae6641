// Frames our walk invented on the peer corpus, judged by hand against the dump bytes, each
// pinned here (Breakpad's processor hides the threads these are on, so breakpad.peer.ts cannot).
// minidump2.dmp's dump-writer thread (id 4544, Windows XP x86) with Breakpad's .sym files: the
// STACK WIN record of ExceptionHandlerThreadMain (FPO, 12 bytes of saved registers), applied to
// its frame found by scanning, read the image base 0x400000 as its return address: a `cfi` frame
// printed with no module, then stale words. The callee's 12 bytes of parameters
// (WriteMinidumpWithException's, which Breakpad adds as `.cbCalleeParams`) put the return
// address 0x18 bytes above, into kernel32!BaseThreadStart, the thread's start, where the run
// without symbols finds it too.
import { expect } from 'chai';
import { join } from 'node:path';
import { processSupplied } from '../helpers/supplied.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { peerCorpus } from './breakpad-compare.js';

const corpus = peerCorpus();

describe('peer tier: frames no walk may invent', function () {
  this.timeout(60_000);
  if (corpus === undefined) {
    it('skipped: no peer corpus beside the repository (../shared/peer-corpus)', function () {
      this.skip();
    });
    return;
  }

  it('minidump2.dmp dump-writer thread with .sym files: no image base frame, ends at BaseThreadStart', async () => {
    const cache = makeTempDir('peer-invented');
    const state = await processSupplied(
      join(corpus, 'dumps', 'minidump2.dmp'),
      { threads: 'all' },
      {
        recordedPaths: false,
        winePrefix: join(cache, 'no-wine-prefix'),
        symbolPath: join(corpus, 'symbols'),
        symbolCacheDir: cache,
      },
    );
    if (!state.ok) throw new Error(state.error.message);
    const stack = state.threads.find((t) => t.id === 4544)?.callStack;
    const frames = stack?.frames ?? [];
    expect(frames.map((f) => f.address)).to.not.include(0x400000n);
    // A frame inside a module carries it.
    for (const f of frames) {
      const inside = state.modules.some(
        (m) => f.address >= m.base && f.address < m.base + BigInt(m.size),
      );
      expect(f.module !== undefined, `frame ${f.index} at 0x${f.address.toString(16)}`).to.equal(
        inside,
      );
    }
    const names = frames.slice(-3).map((f) => f.symbol?.function);
    expect(names).to.deep.equal([
      'google_breakpad::ExceptionHandler::WriteMinidumpWithException(unsigned long,_EXCEPTION_POINTERS *,MDRawAssertionInfo *)',
      'google_breakpad::ExceptionHandler::ExceptionHandlerThreadMain(void *)',
      'BaseThreadStart',
    ]);
    expect(frames.at(-1)?.address).to.equal(0x7c80b683n);
    expect(stack?.stop).to.equal('end');
  });
});
