// The peer tier (`npm run test:peer`): the builtin engine against Google Breakpad's processor on
// Breakpad's own 23 Windows test dumps (google/breakpad src/processor/testdata, BSD-3-Clause),
// read in place from ../shared/peer-corpus (or $CDBH_PEER_CORPUS), never copied here. For each
// dump, with and without Breakpad's .sym files, it compares the crash reason, address and
// thread, the module list, and every frame of every thread Breakpad prints (`-m` output), then
// fails on any frame that differs unless DISAGREEMENTS below names it with the reason we are
// right, on any frame past Breakpad's last unless EXTRA names the thread, and when the matched
// total drops below MATCHED_AT_LEAST. Without the corpus the tier skips with a message.
import { expect } from 'chai';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';
import {
  breakpadReason,
  compareThread,
  peerCorpus,
  readExpected,
  walkOurs,
  type ThreadComparison,
} from './breakpad-compare.js';

/**
 * Frames where we and Breakpad differ, keyed `dump:sym|nosym:thread:frame` (Breakpad's numbers),
 * each checked by hand against the stack.
 */
const DISAGREEMENTS: Record<string, string> = {
  // Frame 8 is ntdll+0x526a1, reached from kernel32+0x17034 (BaseThreadInitThunk): the thread's
  // first function, RtlUserThreadStart. Breakpad's scan goes on and takes KERNELBASE+0x10fe70,
  // a word 0x48 bytes above that return address, inside RtlUserThreadStart's own frame (a
  // 16-byte-aligned offset: a function pointer it keeps, not a return address). Ours ends there.
  'write_av_non_canonical:nosym:0:9': 'a word past the thread start (RtlUserThreadStart)',
  'write_av_non_canonical:sym:0:9': 'a word past the thread start (RtlUserThreadStart)',
};

/**
 * Threads where our walk goes on past Breakpad's last frame, keyed `dump:sym|nosym:thread`, with
 * the reason the frames are real (or why neither walk can tell).
 */
const EXTRA: Record<string, string> = {
  // Worker threads: Breakpad stops after ntdll+0x52dc7 (its x64 scan looks 40 words above the
  // stack pointer). The words 0x300 bytes up are kernel32+0x17034 and ntdll+0x52651, the two
  // return addresses every thread of this process starts with (the crashing thread's own frames
  // 20 and 21 in Breakpad's output: BaseThreadInitThunk and RtlUserThreadStart).
  ...Object.fromEntries(
    ['nosym', 'sym'].flatMap((mode) =>
      [1, 2, 3].map((t) => [
        `tiny-exe-fastfail:${mode}:${t}`,
        'kernel32+0x17034, ntdll+0x52651: the thread start both walks see on thread 0',
      ]),
    ),
  ),
  // A thread-pool thread with no images or symbols: past frame 6 both walks take whatever
  // module words the stack holds (Breakpad's own list includes dbgcore.dll+0x100, a word in the
  // PE header page, where no code can be). Ours lists the same words minus that one (every frame
  // Breakpad prints elsewhere matches) and keeps scanning its larger window: neither walk has
  // unwind data to tell real frames from stale words here.
  'write_av_non_canonical:nosym:1': 'stale words past frame 6, as Breakpad',
  'write_av_non_canonical:sym:1': 'stale words past frame 6, as Breakpad',
};

/**
 * The figure reached: frames of Breakpad's that we match exactly (header-page words aside), all
 * but the two words past a thread start listed in DISAGREEMENTS.
 */
const MATCHED_AT_LEAST = 952;

const corpus = peerCorpus();

describe('peer tier: Breakpad test dumps', function () {
  this.timeout(120_000);
  if (corpus === undefined) {
    it('skipped: no peer corpus beside the repository (../shared/peer-corpus)', function () {
      console.log(
        'test:peer skipped: ../shared/peer-corpus/breakpad is missing (set CDBH_PEER_CORPUS)',
      );
      this.skip();
    });
    return;
  }
  const dumps = readdirSync(join(corpus, 'dumps'))
    .filter((f) => f.endsWith('.dmp'))
    .sort();
  const figures = { total: 0, matched: 0, headerPage: 0, differing: 0, extraFrames: 0 };
  const seenKeys = new Set<string>();

  it('has Breakpad’s 23 Windows dumps and their expected output', () => {
    expect(dumps).to.have.length(23);
  });

  for (const file of dumps) {
    const name = file.replace(/\.dmp$/, '');
    for (const mode of ['nosym', 'sym'] as const) {
      it(`${name} (${mode === 'sym' ? 'with' : 'without'} symbols)`, async () => {
        const expected = readExpected(join(corpus, 'expected', `${name}.${mode}.txt`));
        const ours = await walkOurs(
          join(corpus, 'dumps', file),
          mode === 'sym' ? join(corpus, 'symbols') : undefined,
          makeTempDir('peer'),
        );
        expect(breakpadReason(ours.crash), 'crash reason').to.equal(expected.crash.reason);
        const address = ours.crash === null ? '' : `0x${ours.crash.address.toString(16)}`;
        expect(address, 'crash address').to.equal(expected.crash.address);
        expect(String(ours.crashThread ?? ''), 'crash thread').to.equal(expected.crash.thread);
        // The same modules at the same ranges (Breakpad lists the main module first).
        const line = (m: { name: string; base: bigint; end: bigint }) =>
          `${m.name} 0x${m.base.toString(16)}-0x${m.end.toString(16)}`;
        expect(ours.modules.map(line).sort(), 'modules').to.deep.equal(
          expected.modules.map(line).sort(),
        );
        const problems: string[] = [];
        for (const thread of new Set(expected.rows.map((r) => r.thread))) {
          const result: ThreadComparison = compareThread(
            thread,
            expected.rows.filter((r) => r.thread === thread),
            ours.threads.get(thread),
          );
          figures.total += result.total;
          figures.matched += result.matched;
          figures.headerPage += result.headerPage;
          figures.differing += result.differing.size;
          figures.extraFrames += result.extra;
          for (const [frame, what] of result.differing) {
            const key = `${name}:${mode}:${thread}:${frame}`;
            seenKeys.add(key);
            if (DISAGREEMENTS[key] === undefined) {
              problems.push(`thread ${thread} frame ${frame}: ${what}`);
            }
          }
          const extraKey = `${name}:${mode}:${thread}`;
          if (result.extra > 0) {
            seenKeys.add(extraKey);
            if (EXTRA[extraKey] === undefined) {
              problems.push(
                `thread ${thread}: ${result.extra} frames past Breakpad's last (stop ${result.stop})`,
              );
            }
          }
        }
        expect(problems, 'frames that differ from Breakpad’s').to.deep.equal([]);
      });
    }
  }

  it('matches at least the figures reached, and every listed disagreement still happens', () => {
    console.log(
      `      peer figures: ${figures.matched}/${figures.total} Breakpad frames matched, ` +
        `${figures.headerPage} header-page words skipped, ${figures.differing} differing ` +
        `(each justified), ${figures.extraFrames} frames past Breakpad's last`,
    );
    expect(figures.matched).to.be.at.least(MATCHED_AT_LEAST);
    const stale = [...Object.keys(DISAGREEMENTS), ...Object.keys(EXTRA)].filter(
      (key) => !seenKeys.has(key),
    );
    expect(stale, 'listed disagreements that no longer happen (remove them)').to.deep.equal([]);
  });
});
