// Streams Wine's writers never emit (CodeView ids, MiscInfo v5, thread names and times, handles,
// memory info, comments, VM counters, unloaded modules), read from small dumps built byte by
// byte: every expectation is the value the builder was told to write.
import { expect } from 'chai';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortedError } from '../../src/errors.js';
import { openMinidump } from '../../src/minidump/index.js';
import { inspectDump, type InspectedDumpOk } from '../../src/report/inspect/index.js';
import { assertValid } from '../../src/report/schemas.js';
import { DumpBuilder, struct } from './helpers/dump-builder.js';
import { richDump } from './helpers/rich-dump.js';
import { makeTempDir } from '../helpers/temp-dir.js';

let dir = '';
let serial = 0;
function write(bytes: Buffer): string {
  const path = join(dir, `synthetic-${serial++}.dmp`);
  writeFileSync(path, bytes);
  return path;
}

async function inspectOk(path: string): Promise<InspectedDumpOk> {
  const dump = await inspectDump(path);
  if (!dump.ok) throw new Error(dump.error.message);
  assertValid('inspect', { schemaVersion: 1, dumps: [dump] });
  return dump;
}

describe('minidump reader on synthetic streams', function () {
  before(() => {
    dir = makeTempDir('synthetic');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('derives the symbol-server keys from RSDS and NB10 CodeView records', async function () {
    const dump = await inspectOk(write(richDump()));
    const [exe, dll] = dump.modules;
    expect(exe?.name).to.equal('app.exe');
    expect(exe?.pdbName).to.equal('app.pdb');
    expect(exe?.pdbPath).to.equal('D:\\build\\out\\app.pdb');
    // GUID 5A9832E5-2872-41C1-838E-D98914E9B7FF age 1, the notes' own example.
    expect(exe?.debugId).to.equal('5A9832E5287241C1838ED98914E9B7FF1');
    expect(exe?.codeId).to.equal('45D35F6C2d000');
    expect(exe?.fileVersion).to.equal('10.0.19041.1202');
    expect(dll?.pdbName).to.equal('old.pdb');
    expect(dll?.debugId).to.equal('3A1B2C3D2');
  });

  it('reads MiscInfo v5: pid, create time, build strings; and names dbghelp as the writer', async function () {
    const dump = await inspectOk(write(richDump()));
    expect(dump.process.pid).to.equal(4242);
    expect(dump.process.createTime).to.equal(new Date(1_699_999_900 * 1000).toISOString());
    expect(dump.process.uptimeSeconds).to.equal(100);
    expect(dump.writer).to.equal('dbghelp');
    expect(dump.writerEvidence).to.contain('dbgcore.amd64,10.0.19041.1');
    const reader = await openMinidump(dump.file);
    try {
      expect((await reader.miscInfo())?.buildString).to.equal(
        '19041.1.amd64fre.vb_release.191206-1406',
      );
    } finally {
      await reader.close();
    }
  });

  it('joins thread names and ThreadInfoList times to the thread list, and marks the faulting thread', async function () {
    const dump = await inspectOk(write(richDump()));
    expect(dump.threads.map((t) => t.id)).to.deep.equal([0x1a2b, 0x3c4d]);
    const [faulting, worker] = dump.threads;
    expect(faulting?.faulting).to.equal(true);
    expect(worker?.name).to.equal('worker-pool #1');
    expect(worker?.writingThread).to.equal(true);
    expect(worker?.userTimeMs).to.equal(1234);
    expect(worker?.kernelTimeMs).to.equal(500);
    expect(worker?.teb).to.equal('0x8000');
  });

  it('decodes a fail-fast exception with its FAST_FAIL code and finds the faulting module', async function () {
    const dump = await inspectOk(write(richDump()));
    expect(dump.exception?.code).to.equal('0xc0000409');
    expect(dump.exception?.name).to.contain('FAST_FAIL_FATAL_APP_EXIT (7)');
    expect(dump.exception?.module).to.equal('app.exe');
    expect(dump.exception?.moduleOffset).to.equal('0x1234');
  });

  it('summarises handles by type, memory regions by state, comments, VM counters, unloaded modules', async function () {
    const dump = await inspectOk(write(richDump()));
    expect(dump.handles).to.deep.equal({ count: 3, byType: { Event: 2, File: 1 } });
    expect(dump.memory.info?.committedBytes).to.equal(0x6000);
    expect(dump.memory.info?.privateCommittedBytes).to.equal(0x4000);
    expect(dump.memory.info?.reservedBytes).to.equal(0x8000);
    expect(dump.memory.info?.committedByProtect).to.deep.equal({
      PAGE_READWRITE: 0x4000,
      PAGE_EXECUTE_READ: 0x2000,
    });
    expect(dump.comments).to.deep.equal(['ansi note', 'wide note']);
    expect(dump.process.privateUsage).to.equal(48 * 2 ** 20);
    expect(dump.process.workingSetSize).to.equal(64 * 2 ** 20);
    expect(dump.unloadedModules).to.deep.equal([
      {
        base: '0x7ffb00000000',
        size: 0x5000,
        path: 'C:\\plugins\\gone.dll',
        name: 'gone.dll',
        timestamp: '1970-01-01T00:00:00.000Z',
        timestampEpoch: 0,
      },
    ]);
    expect(dump.system?.csd).to.equal('Service Pack 2');
    expect(dump.system?.osVersion).to.equal('10.0.19042');
  });

  it('lists an unknown stream by number and warns about flags the streams contradict', async function () {
    const dump = await inspectOk(write(richDump()));
    expect(dump.streams.map((s) => s.name)).to.include('Unknown(0x13572468)');
    expect(dump.flags).to.equal('0x1826');
    expect(dump.kind).to.equal('mini');
    // 0x1826 asks for full memory, handles, unloaded modules, memory info and thread info;
    // only the full memory is missing.
    expect(dump.warnings.join('\n')).to.match(
      /MiniDumpWithFullMemory \(0x2\), but the dump holds no full memory/,
    );
    expect(dump.warnings.join('\n')).to.not.match(
      /HandleData|ThreadInfoList|MemoryInfoList|UnloadedModuleList/,
    );
  });

  it('reads the BreakpadInfo stream: each thread id only when its validity flag is set', async function () {
    const info = (validity: number, size = 12) =>
      struct(size, (s) => {
        if (size >= 4) s.writeUInt32LE(validity, 0);
        if (size >= 8) s.writeUInt32LE(0x111, 4);
        if (size >= 12) s.writeUInt32LE(0x222, 8);
      });
    const read = async (data: Buffer) => {
      const dump = await openMinidump(write(new DumpBuilder(1).stream(0x47670001, data).build()));
      try {
        return { info: await dump.breakpadInfo(), warnings: dump.warnings() };
      } finally {
        await dump.close();
      }
    };
    expect((await read(info(3))).info).to.deep.equal({
      dumpThreadId: 0x111,
      requestingThreadId: 0x222,
    });
    expect((await read(info(2))).info).to.deep.equal({ requestingThreadId: 0x222 });
    const short = await read(info(3, 8));
    expect(short.info).to.equal(null);
    expect(short.warnings.join('\n')).to.match(/BreakpadInfo: 8-byte stream is shorter/);
    const none = await openMinidump(write(richDump()));
    try {
      expect(await none.breakpadInfo()).to.equal(null);
    } finally {
      await none.close();
    }
  });

  it('reads memory across two adjacent MemoryList ranges, short at the end, null outside', async function () {
    const reader = await openMinidump(write(richDump()));
    try {
      const across = await reader.readMemory(0x10f0n, 0x20);
      expect([...(across ?? [])]).to.deep.equal([
        ...new Array<number>(16).fill(0xaa),
        ...new Array<number>(16).fill(0xbb),
      ]);
      const short = await reader.readMemory(0x11f0n, 0x100);
      expect(short?.length).to.equal(0x10);
      expect(await reader.readMemory(0x1200n, 1)).to.equal(null);
      expect(await reader.readMemory(0xfffn, 1)).to.equal(null);
    } finally {
      await reader.close();
    }
  });

  it('calls a dump with megabytes in a Memory64List full even when its flags say 0, with a warning', async function () {
    const b = new DumpBuilder(2);
    const memory = Buffer.alloc(2 * 2 ** 20, 0x5a);
    const header = 16 + 16 * 2;
    // The list goes at the next 4-aligned offset; the memory bytes right after it.
    const aligned = b.end + ((4 - (b.end % 4)) % 4) + header;
    b.stream(
      9,
      struct(header, (l) => {
        l.writeBigUInt64LE(2n, 0);
        l.writeBigUInt64LE(BigInt(aligned), 8);
        l.writeBigUInt64LE(0x100000n, 16);
        l.writeBigUInt64LE(BigInt(2 ** 20), 24);
        l.writeBigUInt64LE(0x300000n, 32); // a gap after the first range
        l.writeBigUInt64LE(BigInt(2 ** 20), 40);
      }),
    );
    const rva = b.append(memory);
    b.stream(0xfff0, Buffer.alloc(8));
    const file = write(b.build());
    const dump = await inspectOk(file);
    expect(rva).to.equal(aligned);
    expect(dump.kind).to.equal('full');
    expect(dump.memory).to.include({ rangeCount: 2, totalBytes: 2 * 2 ** 20, missingBytes: 0 });
    expect(dump.warnings.join('\n')).to.match(/lack MiniDumpWithFullMemory/);
    expect(dump.writer).to.equal('wine');
    const reader = await openMinidump(file);
    try {
      expect((await reader.readMemory(0x1ffffen, 4))?.length).to.equal(2);
    } finally {
      await reader.close();
    }
  });
});

describe('minidump reader and AbortSignal', function () {
  it('stops reading when the signal is aborted, with an AbortedError', async function () {
    const path = join(tmpdir(), `cdbh-abort-${process.pid}.dmp`);
    writeFileSync(path, richDump());
    try {
      const controller = new AbortController();
      const dump = await openMinidump(path, { signal: controller.signal, cacheBytes: 0 });
      try {
        controller.abort();
        let thrown: unknown;
        try {
          await dump.modules();
        } catch (error) {
          thrown = error;
        }
        expect(thrown).to.be.instanceOf(AbortedError);
      } finally {
        await dump.close();
      }
      let rejected: unknown;
      try {
        await inspectDump(path, { signal: AbortSignal.abort() });
      } catch (error) {
        rejected = error;
      }
      expect(rejected).to.be.instanceOf(AbortedError);
    } finally {
      rmSync(path, { force: true });
    }
  });
});
