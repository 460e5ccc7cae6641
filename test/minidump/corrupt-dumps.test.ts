// Damaged copies of real Wine dumps: each damage gives a clear BadDumpError (inspect: ok false
// with BAD_DUMP) or a warning with everything still readable kept, never a crash, a hang or a
// giant allocation.
import { expect } from 'chai';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BadDumpError } from '../../src/errors.js';
import { openMinidump } from '../../src/minidump/index.js';
import {
  inspectDump,
  type InspectedDump,
  type InspectedDumpOk,
} from '../../src/report/inspect/index.js';
import { wineRigReady } from '../helpers/wine.js';
import {
  corruptCopy,
  fileSizeOf,
  rawDirectory,
  rawStream,
  readBytes,
  seededBytes,
  truncatedCopy,
  u32le,
  u64le,
} from './helpers/corrupt.js';
import { avDumpOnce, dumpDir, threadsDumpsOnce } from './helpers/real-dumps.js';

const THREAD_LIST = 3;
const MODULE_LIST = 4;
const MEMORY_LIST = 5;
const EXCEPTION = 6;
const MEMORY64_LIST = 9;

function ok(dump: InspectedDump): InspectedDumpOk {
  if (!dump.ok)
    throw new Error(`expected a readable dump, got ${dump.error.code}: ${dump.error.message}`);
  return dump;
}

function failed(dump: InspectedDump, pattern: RegExp): void {
  expect(dump.ok, `${dump.file} should be unreadable`).to.equal(false);
  if (dump.ok) return;
  expect(dump.error.code).to.equal('BAD_DUMP');
  expect(dump.error.message).to.match(pattern);
}

/** Heap + external memory in MB: what a giant allocation would blow up. */
function memoryMb(): number {
  const usage = process.memoryUsage();
  return (usage.heapUsed + usage.external) / 1024 / 1024; // external includes ArrayBuffers
}

describe('minidump reader on damaged dumps', function () {
  let mini = '';
  let full = '';
  let bufferAddress = 0n;
  let bufferBytes = 0;

  before(async function () {
    // The files that are not dumps at all need no Wine; everything else damages a real dump.
    if (!wineRigReady()) return;
    this.timeout(120_000);
    mini = (await avDumpOnce()).path;
    const threads = await threadsDumpsOnce();
    full = threads.full;
    bufferAddress = threads.facts.bufferAddress;
    bufferBytes = threads.facts.bufferBytes;
  });

  describe('files that are not minidumps at all', function () {
    it('an empty file: BadDumpError saying it is empty', async function () {
      const path = join(dumpDir(), 'empty.dmp');
      writeFileSync(path, '');
      failed(await inspectDump(path), /empty/);
      let thrown: unknown;
      try {
        await openMinidump(path);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).to.be.instanceOf(BadDumpError);
    });

    it('random bytes: not a minidump, naming what the file starts with', async function () {
      const path = join(dumpDir(), 'random.dmp');
      writeFileSync(path, seededBytes(42, 100_000));
      failed(await inspectDump(path), /not a minidump/);
    });

    it('a signature with flipped bits: not a minidump', async function () {
      if (mini === '') this.skip();
      const path = corruptCopy(mini, 'signature', (patch) => patch(0, Buffer.from([0x4d ^ 0xff])));
      failed(await inspectDump(path), /not a minidump/);
    });

    it('a byte-swapped signature: a big-endian dump, refused by name', async function () {
      if (mini === '') this.skip();
      const path = corruptCopy(mini, 'big-endian', (patch) => patch(0, Buffer.from('PMDM')));
      failed(await inspectDump(path), /big-endian/);
    });

    it('a missing file: an IO error, not a crash', async function () {
      const dump = await inspectDump(join(dumpDir(), 'no-such.dmp'));
      expect(dump.ok).to.equal(false);
      if (!dump.ok) expect(dump.error.code).to.equal('IO');
    });
  });

  describe('a damaged header or directory', function () {
    it('cut inside the header: too short', async function () {
      if (mini === '') this.skip();
      failed(await inspectDump(truncatedCopy(mini, 20)), /too short/);
    });

    it('cut inside the directory: the directory lies outside the file', async function () {
      if (mini === '') this.skip();
      failed(await inspectDump(truncatedCopy(mini, 40)), /directory .* outside/);
    });

    it('a zeroed directory: every entry empty', async function () {
      if (mini === '') this.skip();
      const entries = rawDirectory(mini);
      const first = entries[0];
      if (!first) throw new Error('no directory');
      const path = corruptCopy(mini, 'zero-dir', (patch) =>
        patch(first.entryOffset, Buffer.alloc(entries.length * 12)),
      );
      failed(await inspectDump(path), /directory entries are empty/);
    });

    it('an absurd stream count (0xffffffff): refused before reading 48 GB of directory', async function () {
      if (mini === '') this.skip();
      const path = corruptCopy(mini, 'stream-count', (patch) => patch(8, u32le(0xffffffff)));
      failed(await inspectDump(path), /claims 4294967295 streams/);
    });
  });

  describe('damaged streams: warnings, and the rest kept', function () {
    it('0xffffffff threads: clamped to what the stream holds, with a warning', async function () {
      if (mini === '') this.skip();
      const before = ok(await inspectDump(mini));
      const list = rawStream(mini, THREAD_LIST);
      const path = corruptCopy(mini, 'thread-count', (patch) => patch(list.rva, u32le(0xffffffff)));
      const base = memoryMb();
      const dump = ok(await inspectDump(path));
      expect(memoryMb() - base).to.be.below(50);
      expect(dump.threads.length).to.equal(before.threads.length);
      expect(dump.warnings.join('\n')).to.match(/ThreadList: claims 4294967295 entries/);
      expect(dump.exception?.code).to.equal(before.exception?.code);
    });

    it('0xffffffff modules: clamped, and the exception still decoded', async function () {
      if (mini === '') this.skip();
      const list = rawStream(mini, MODULE_LIST);
      const path = corruptCopy(mini, 'module-count', (patch) => patch(list.rva, u32le(0xffffffff)));
      const dump = ok(await inspectDump(path));
      expect(dump.warnings.join('\n')).to.match(/ModuleList: claims 4294967295 entries/);
      expect(dump.exception?.code).to.equal('0xc0000005');
      expect(dump.modules.length).to.be.greaterThan(0);
    });

    it('a Memory64List claiming 2^64-1 ranges: clamped, no giant allocation', async function () {
      if (mini === '') this.skip();
      const list = rawStream(full, MEMORY64_LIST);
      const path = corruptCopy(full, 'mem64-count', (patch) =>
        patch(list.rva, u64le(0xffffffffffffffffn)),
      );
      const base = memoryMb();
      const dump = ok(await inspectDump(path));
      expect(memoryMb() - base).to.be.below(50);
      expect(dump.warnings.join('\n')).to.match(/Memory64List: claims 18446744073709551615 ranges/);
      expect(dump.kind).to.equal('full');
    });

    it('NumberParameters 0xffffffff in the exception: at most 15 parameters, with a warning', async function () {
      if (mini === '') this.skip();
      const stream = rawStream(mini, EXCEPTION);
      const path = corruptCopy(mini, 'exc-params', (patch) =>
        patch(stream.rva + 32, u32le(0xffffffff)),
      );
      const dump = ok(await inspectDump(path));
      expect(dump.exception?.parameters.length).to.equal(15);
      expect(dump.warnings.join('\n')).to.match(/NumberParameters/);
    });

    it('a string RVA past the end of the file: the module keeps its other fields', async function () {
      if (mini === '') this.skip();
      const list = rawStream(mini, MODULE_LIST);
      // First module entry starts after the 4-byte count; its name RVA is at +20.
      const path = corruptCopy(mini, 'name-rva', (patch) =>
        patch(list.rva + 4 + 20, u32le(0xfffffff0)),
      );
      const dump = ok(await inspectDump(path));
      expect(dump.modules[0]?.path).to.equal('');
      expect(dump.modules[0]?.base).to.match(/^0x[0-9a-f]+$/);
      // A name the file does not reach: the file is said to be truncated, in one line.
      expect(dump.truncated).to.equal(true);
      expect(dump.pastEnd).to.deep.equal({ 'ModuleList strings': 1 });
      expect(dump.warnings[0]).to.match(
        /^TRUNCATED: .*ends before what it references: 1 ModuleList strings/,
      );
    });

    it('overlapping memory ranges: a warning, and reads still served', async function () {
      if (mini === '') this.skip();
      const list = rawStream(mini, MEMORY_LIST);
      const count = readBytes(mini, list.rva, 4).readUInt32LE(0);
      expect(count).to.be.greaterThan(2);
      // Give descriptor 1 the start address of descriptor 0: the two now overlap.
      const start0 = readBytes(mini, list.rva + 4, 8);
      const path = corruptCopy(mini, 'overlap', (patch) => patch(list.rva + 4 + 16, start0));
      const dump = ok(await inspectDump(path));
      expect(dump.warnings.join('\n')).to.match(/overlap/);
      const reader = await openMinidump(path);
      try {
        expect(await reader.readMemory(start0.readBigUInt64LE(0), 1)).to.not.equal(null);
      } finally {
        await reader.close();
      }
    });

    it('header flags that claim full memory on a minidump: a warning, kind from the streams', async function () {
      if (mini === '') this.skip();
      const path = corruptCopy(mini, 'flags', (patch) => patch(24, u64le(0x2n)));
      const dump = ok(await inspectDump(path));
      expect(dump.kind).to.equal('mini');
      expect(dump.flags).to.equal('0x2');
      expect(dump.warnings.join('\n')).to.match(
        /MiniDumpWithFullMemory \(0x2\), but the dump holds no full memory/,
      );
    });
  });

  describe('truncated dumps', function () {
    it('a full dump cut in the middle of its memory: kept as full, the readable part served', async function () {
      if (mini === '') this.skip();
      const size = fileSizeOf(full);
      const path = truncatedCopy(full, Math.floor(size / 2));
      const dump = ok(await inspectDump(path));
      expect(dump.kind).to.equal('full');
      expect(dump.memory.missingBytes).to.be.greaterThan(0);
      expect(dump.warnings.join('\n')).to.match(/truncated full dump/);
      const reader = await openMinidump(path);
      try {
        const bytes = await reader.readMemory(bufferAddress, bufferBytes);
        // Either the buffer sat in the half that survived, or it is honestly not there.
        if (bytes !== null) expect(bytes[0]).to.equal(13);
        expect(reader.bytesRead).to.be.below(4 * 1024 * 1024);
      } finally {
        await reader.close();
      }
    });

    it('cut at 64 points across a minidump: every cut is a clear error or a readable dump', async function () {
      if (mini === '') this.skip();
      this.timeout(60_000);
      const size = fileSizeOf(mini);
      const base = memoryMb();
      const outcomes = new Set<string>();
      for (let i = 1; i <= 64; i++) {
        const cut = Math.floor((size * i) / 65);
        const dump = await inspectDump(truncatedCopy(mini, cut));
        if (dump.ok) {
          outcomes.add('ok');
          expect(dump.warnings.length, `cut at ${cut} should warn`).to.be.greaterThan(0);
        } else {
          outcomes.add(dump.error.code);
          expect(dump.error.code).to.equal('BAD_DUMP');
        }
      }
      expect(memoryMb() - base).to.be.below(100);
      expect([...outcomes]).to.include('ok');
    });
  });

  describe('random damage', function () {
    it('300 dumps with random bytes overwritten in the structures: never a throw or a hang', async function () {
      if (mini === '') this.skip();
      this.timeout(120_000);
      const entries = rawDirectory(mini).filter((s) => s.type !== 0);
      // The structures end where the first big stream (the memory list data) starts.
      const end = Math.min(
        fileSizeOf(mini),
        Math.max(...entries.map((s) => s.rva + Math.min(s.size, 4096))),
      );
      const base = memoryMb();
      // A hang on one of them shows as this test's timeout (bench/minidump-inspect.ts has speed).
      for (let seed = 1; seed <= 300; seed++) {
        const noise = seededBytes(seed, 64);
        const path = corruptCopy(mini, `fuzz-${seed}`, (patch) => {
          for (let k = 0; k < 8; k++) {
            const at = (noise.readUInt32LE((k * 8) % 60) % end) & ~3;
            patch(at, noise.subarray((k * 8) % 56, ((k * 8) % 56) + 8));
          }
        });
        const dump = await inspectDump(path);
        if (!dump.ok)
          expect(['BAD_DUMP', 'IO'], `seed ${seed}: ${dump.error.message}`).to.include(
            dump.error.code,
          );
      }
      expect(memoryMb() - base).to.be.below(200);
    });
  });
});
