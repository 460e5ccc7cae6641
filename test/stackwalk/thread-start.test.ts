// The walk ends at the thread's start without ntdll's names (no symbols, no images: most dumps):
// the last kernel32 frame called from ntdll is BaseThreadInitThunk called by RtlUserThreadStart,
// and the words a scan finds above it (copies of the start routine's address, Wine's start-up
// words) are no frames. Shown on the repository's av-write-a.dmp (winedbg, Wine 8: the walk went
// on past ntdll+0x5dca8 to av+0x14d0, mainCRTStartup's first byte, and ended `lost`) and on a
// dump built here with a stale kernel32/ntdll pair mid-stack that must not end the walk.
import { expect } from 'chai';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { walkedStacks } from '../helpers/walked-stacks.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { Stack64, writeAmd64Dump } from './helpers/amd64-dump.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '../..');

const APP = { name: 'app.exe', base: 0x140000000n, size: 0x40000 };
const KERNEL32 = { name: 'KERNEL32.DLL', base: 0x7ff805450000n, size: 0x100000 };
const NTDLL = { name: 'ntdll.dll', base: 0x7ff806ab0000n, size: 0x200000 };
const at = (m: { base: bigint }, rva: number) => m.base + BigInt(rva);

describe('walk end at the thread start without ntdll names', () => {
  it('av-write-a.dmp (Wine): ends at RtlUserThreadStart, not on copies of the start address', async () => {
    const path = join(REPO, 'examples/dumps/av-write-a.dmp');
    const { stacks } = await walkedStacks(path, {}, { recordedPaths: false });
    const stack = stacks[0];
    expect(stack?.frames.map((f) => f.label)).to.deep.equal([
      'av+0x154a',
      'av+0x16bc',
      'av+0x13ae',
      'av+0x14e6',
      'ntdll+0x5d9f6',
      'kernel32+0x27e49',
      'ntdll+0x5dca8',
    ]);
    expect(stack?.stop).to.equal('end');
  });

  it('a stale kernel32/ntdll pair mid-stack does not end the walk; the last one does', async () => {
    const stack = new Stack64(0x21e000n, 0x2000);
    stack.put(0x21f000n, at(KERNEL32, 0x1c931)); // stale: a kernel32 word ...
    stack.put(0x21f008n, at(NTDLL, 0x2de63)); // ... then an ntdll one
    stack.put(0x21f100n, at(APP, 0x1234)); // the real callers above them
    stack.put(0x21f200n, at(KERNEL32, 0x13034)); // BaseThreadInitThunk
    stack.put(0x21f300n, at(NTDLL, 0x71461)); // RtlUserThreadStart
    stack.put(0x21f380n, at(APP, 0x14d0)); // a copy of the start address
    stack.put(0x21f3a0n, at(NTDLL, 0x68ca0)); // and other leftovers
    const path = writeAmd64Dump(makeTempDir('thread-start'), 'stale-pair.dmp', {
      modules: [APP, KERNEL32, NTDLL],
      stack,
      registers: { rip: at(APP, 0x2000), rsp: 0x21eff8n },
      exceptionCode: 0xc0000005,
    });
    const { stacks } = await walkedStacks(path, {}, { recordedPaths: false });
    expect(stacks[0]?.frames.map((f) => f.label)).to.deep.equal([
      'app+0x2000',
      'KERNEL32+0x1c931',
      'ntdll+0x2de63',
      'app+0x1234',
      'KERNEL32+0x13034',
      'ntdll+0x71461',
    ]);
    expect(stacks[0]?.stop).to.equal('end');
  });
});
