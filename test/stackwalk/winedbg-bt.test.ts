// The walker against winedbg's own `bt` on the same crash: chain.exe (test/targets/chain.c) is
// run under winedbg until its unhandled access violation, winedbg prints its backtrace at the
// stop, then writes a minidump there. The builtin walk of that dump must show every frame
// winedbg shows, in the same order at the same addresses (winedbg's list, with its repeated
// inline frames folded, is a prefix of ours), and every frame in chain.exe must come from the
// unwind data (trust `cfi`), not a scan.
import { expect } from 'chai';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { walkedStacks, type WalkedStacks as DumpStacks } from '../helpers/walked-stacks.js';
import { targetPath, wineEnv, wineRigReady } from '../helpers/wine.js';
import { dumpDir } from '../minidump/helpers/real-dumps.js';
import { startWinedbg } from '../minidump/helpers/winedbg-script.js';

interface BtFrame {
  index: number;
  address: bigint;
  module: string;
  /** `b+0xc`, `__wine_pop_frame`, or '' when winedbg has no name. */
  name: string;
}

// Sample lines of winedbg's `bt`:
// "=>0 0x0000014000159b c(x=0x18) [Z:\work\wt-11\test\targets\chain.c:19] in chain (0x00000000c81360)"
// "  5 0x000001400013ae in chain (+0x13ae) (0x00000000c81300)"
const BT_LINE = /^\s*(?:=>)?(\d+) (0x[0-9a-f]+) (?:([^\s(]+)\(.*?)?\bin (\w+) \(/;

function parseBacktrace(text: string): BtFrame[] {
  const start = text.indexOf('Backtrace:');
  if (start < 0) throw new Error(`no Backtrace in winedbg's reply:\n${text}`);
  const frames: BtFrame[] = [];
  for (const line of text.slice(start).split('\n').slice(1)) {
    const match = BT_LINE.exec(line);
    if (!match) break;
    frames.push({
      index: Number(match[1]),
      address: BigInt(match[2]!),
      name: match[3] ?? '',
      module: match[4]!,
    });
  }
  return frames;
}

async function crashUnderWinedbg(
  args: string[],
  file: string,
): Promise<{ bt: BtFrame[]; path: string }> {
  const path = join(dumpDir(), file);
  const session = await startWinedbg([targetPath('chain'), ...args]);
  const previous = /^\s*(\d+)/.exec(await session.command('print $BreakOnFirstChance'))?.[1];
  try {
    // Stop only at the unhandled (second-chance) fault, where winedbg prints its backtrace.
    await session.command('set $BreakOnFirstChance=0');
    const reply = await session.command('cont', 30_000);
    if (!reply.includes('Unhandled exception')) throw new Error(`no crash stop:\n${reply}`);
    await session.command(`minidump "${path}"`, 20_000);
    return { bt: parseBacktrace(reply), path };
  } finally {
    if (previous !== undefined && previous !== '0') {
      await session.command(`set $BreakOnFirstChance=${previous}`).catch(() => undefined);
    }
    await session.close({ killTarget: true });
  }
}

async function walk(
  path: string,
  options: { recordedPaths?: boolean; imagePaths?: string[] } = {},
): Promise<DumpStacks> {
  return walkedStacks(
    path,
    { threads: 'exception' },
    { winePrefix: wineEnv()['WINEPREFIX'] ?? '', ...options },
  );
}

/**
 * Consecutive frames at one address under different names are an inlined function and its
 * caller in winedbg's list (`__wine_pop_frame` in `RtlUserThreadStart`): one real frame. The
 * same name at the same address is recursion, which stays.
 */
function folded(frames: readonly BtFrame[]): BtFrame[] {
  return frames.filter((f, i) => {
    const before = frames[i - 1];
    return before === undefined || before.address !== f.address || before.name === f.name;
  });
}

/** Functions the system DLLs export, which winedbg names in these crashes. */
const EXPORTED = new Set(['qsort', 'qsort_s', 'EnumSystemLocalesA', 'BaseThreadInitThunk']);

const CASES: { name: string; args: string[]; chainFrames: number }[] = [
  { name: 'main → run → a → b → c', args: ['abc', '3'], chainFrames: 5 },
  { name: 'eight levels of recursion', args: ['deep', '8'], chainFrames: 13 },
  { name: 'a leaf function with no unwind data', args: ['leaf', '1'], chainFrames: 4 },
  { name: 'a 64 KiB frame (stack probe, large alloc code)', args: ['big', '1'], chainFrames: 4 },
  { name: 'alloca of 20000 bytes (frame pointer)', args: ['alloca', '20000'], chainFrames: 4 },
  { name: 'a callback through msvcrt!qsort', args: ['qsort', '0'], chainFrames: 5 },
  {
    name: 'a callback through kernelbase!EnumSystemLocalesA',
    args: ['callback', '0'],
    chainFrames: 5,
  },
];

describe('stack walk vs winedbg bt (chain.exe crashes)', function () {
  before(function () {
    if (!wineRigReady()) this.skip();
  });

  for (const { name, args, chainFrames } of CASES) {
    it(`${name}: same frames, same order, same addresses`, async function () {
      this.timeout(90_000);
      const { bt, path } = await crashUnderWinedbg(args, `chain-${args.join('-')}.dmp`);
      const stacks = await walk(path);
      const stack = stacks.stacks[0];
      expect(stack?.context).to.equal('exception');
      const ours = stack?.frames ?? [];
      const theirs = folded(bt);
      const chainOnly = theirs.filter((f) => f.module === 'chain');
      // main's own callers (the CRT start-up) show too: at least the chain we built.
      expect(chainOnly.length, 'chain frames in winedbg bt').to.be.at.least(chainFrames);
      expect(
        ours.slice(0, theirs.length).map((f) => f.address),
        "our first frames are winedbg's frames",
      ).to.deep.equal(theirs.map((f) => `0x${f.address.toString(16)}`));
      const ourChain = ours.filter((f) => f.module === 'chain.exe');
      expect(ourChain.map((f) => f.address).slice(0, chainOnly.length)).to.deep.equal(
        chainOnly.map((f) => `0x${f.address.toString(16)}`),
      );
      expect(
        ourChain.slice(1).every((f) => f.trust === 'cfi'),
        'chain frames unwound by .pdata',
      ).to.be.true;
      expect(ours[0]?.trust).to.equal('context');
      // Exported functions winedbg names from its debug info carry the same name here, from the
      // export table alone (offsets may differ: winedbg's function starts are its own).
      theirs.forEach((frame, i) => {
        const name = frame.name.replace(/\+0x[0-9a-f]+$/, '');
        if (EXPORTED.has(name)) expect(ours[i]?.function, `frame ${i}`).to.equal(name);
      });
    });
  }

  it('finds the image in a symbol-store layout under --image-path, and never a rebuilt file', async function () {
    this.timeout(90_000);
    const { bt, path } = await crashUnderWinedbg(['abc', '1'], 'chain-abc-store.dmp');
    const exe = readFileSync(targetPath('chain'));
    const peAt = exe.readUInt32LE(60);
    const stamp = exe.readUInt32LE(peAt + 8);
    const sizeOfImage = exe.readUInt32LE(peAt + 24 + 56);
    const key = `${stamp.toString(16).toUpperCase().padStart(8, '0')}${sizeOfImage.toString(16)}`;
    const store = join(dumpDir(), 'store');
    mkdirSync(join(store, 'chain.exe', key), { recursive: true });
    writeFileSync(join(store, 'chain.exe', key, 'chain.exe'), exe);
    // The same program "rebuilt": another time stamp. It sits flat, where it would be found first.
    const rebuilt = join(dumpDir(), 'rebuilt');
    mkdirSync(rebuilt, { recursive: true });
    const other = Buffer.from(exe);
    other.writeUInt32LE(stamp + 1, peAt + 8);
    writeFileSync(join(rebuilt, 'chain.exe'), other);

    const fromStore = await walk(path, { recordedPaths: false, imagePaths: [rebuilt, store] });
    expect(fromStore.images['chain.exe']).to.equal(join(store, 'chain.exe', key, 'chain.exe'));
    const chain = folded(bt).filter((f) => f.module === 'chain');
    const ours = (fromStore.stacks[0]?.frames ?? []).filter((f) => f.module === 'chain.exe');
    expect(ours.map((f) => f.address).slice(0, chain.length)).to.deep.equal(
      chain.map((f) => `0x${f.address.toString(16)}`),
    );
    const rebuiltOnly = await walk(path, { recordedPaths: false, imagePaths: [rebuilt] });
    expect(rebuiltOnly.images['chain.exe']).to.equal('not found');
  });

  it('without images the walk falls back to a scan that still finds the chain, trust saying so', async function () {
    this.timeout(90_000);
    const { bt, path } = await crashUnderWinedbg(['abc', '2'], 'chain-abc-noimage.dmp');
    const stacks = await walk(path, { recordedPaths: false });
    const ours = stacks.stacks[0]?.frames ?? [];
    const theirChain = folded(bt).filter((f) => f.module === 'chain');
    const ourAddresses = ours.map((f) => f.address);
    // Every frame winedbg shows in chain.exe is among the scanned ones, in order.
    let from = 0;
    for (const frame of theirChain) {
      const at = ourAddresses.indexOf(`0x${frame.address.toString(16)}`, from);
      expect(at, `frame ${frame.index} found`).to.be.at.least(from);
      from = at + 1;
    }
    // Frame 1 is `leaf` when the word at RSP is the return address (frame 0 read as a leaf
    // function, Breakpad's "simulating a return"), else a scan like every later frame: checked
    // against the code winedbg's dump holds before each word (`scan-call`) where it holds some.
    expect(['leaf', 'scan', 'scan-call']).to.include(ours[1]?.trust);
    expect(ours.slice(2).every((f) => f.trust === 'scan' || f.trust === 'scan-call')).to.be.true;
  });
});
