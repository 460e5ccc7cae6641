// The reader against dumps Wine's writers produce during this run: winedbg at first-chance
// exceptions and on attach, and MiniDumpWriteDump (mdw.exe) with full memory. Every expectation
// comes from outside the reader: the code the program was told to raise, the address winedbg
// printed, the pid and thread ids and buffer address the program printed.
import { expect } from 'chai';
import { basename } from 'node:path';
import { openMinidump } from '../../src/minidump/index.js';
import { inspectDump, type InspectedDumpOk } from '../../src/report/inspect/index.js';
import { targetPath, wineRigReady } from '../helpers/wine.js';
import {
  avDumpOnce,
  clrDumpOnce,
  THREADS_WORKERS,
  threadsDumpsOnce,
} from './helpers/real-dumps.js';

function okDump(dump: Awaited<ReturnType<typeof inspectDump>>): InspectedDumpOk {
  if (!dump.ok) throw new Error(`expected a readable dump: ${dump.error.message}`);
  return dump;
}

/** Byte i of threads.exe's buffer, as its source defines the pattern. */
const pattern = (i: number) => (i * 7 + 13) & 0xff;

describe('minidump reader on real Wine dumps', function () {
  before(function () {
    if (!wineRigReady()) this.skip();
  });

  describe('winedbg minidump at a first-chance CLR exception (raise.exe e0434352)', function () {
    before(async function () {
      this.timeout(60_000);
      await clrDumpOnce();
    });

    it('holds the raised code, its five CLR parameters and the raising thread', async function () {
      const { path, stopAddress } = await clrDumpOnce();
      const dump = okDump(await inspectDump(path));
      const exception = dump.exception;
      expect(exception, 'exception stream').to.not.equal(null);
      expect(exception?.code).to.equal('0xe0434352');
      expect(exception?.name).to.match(/CLR exception/);
      expect(exception?.name).to.contain('0x80131500');
      // raise.c raises like the runtime: HRESULT 0x80131500, 0, 0, 0, its own module base.
      const exeBase = dump.modules.find((m) => m.name === 'raise.exe')?.base;
      expect(exception?.parameters).to.deep.equal(['0x80131500', '0x0', '0x0', '0x0', exeBase]);
      expect(BigInt(exception?.address ?? '0')).to.equal(stopAddress);
      expect(dump.threads.map((t) => t.id)).to.include(exception?.threadId);
      expect(dump.threads.find((t) => t.id === exception?.threadId)?.faulting).to.equal(true);
    });

    it('lists raise.exe as the main module and identifies Wine as the writer of a minidump', async function () {
      const dump = okDump(await inspectDump((await clrDumpOnce()).path));
      expect(dump.process.name).to.equal(basename(targetPath('raise')));
      expect(dump.modules.map((m) => m.name.toLowerCase())).to.include.members([
        'raise.exe',
        'ntdll.dll',
        'kernel32.dll',
      ]);
      expect(dump.kind).to.equal('mini');
      expect(dump.writer).to.equal('wine');
      expect(dump.system?.arch).to.equal('amd64');
      expect(dump.streams.map((s) => s.name)).to.include('WineElfModules');
    });
  });

  describe('winedbg minidump at an access violation (av.exe write)', function () {
    before(async function () {
      this.timeout(60_000);
      await avDumpOnce();
    });

    it('decodes a write to 0x10 at the address winedbg stopped at, inside av.exe', async function () {
      const { path, stopAddress, stopLine } = await avDumpOnce();
      expect(stopLine).to.contain('page fault on write access to 0x0000000000000010');
      const dump = okDump(await inspectDump(path));
      const exception = dump.exception;
      expect(exception?.code).to.equal('0xc0000005');
      expect(exception?.parameters).to.deep.equal(['0x1', '0x10']);
      expect(exception?.accessType).to.equal('write');
      expect(exception?.accessAddress).to.equal('0x10');
      expect(exception?.name).to.equal('Access violation writing 0x10');
      expect(BigInt(exception?.address ?? '0')).to.equal(stopAddress);
      expect(exception?.module).to.equal('av.exe');
    });

    it('reads the faulting instruction bytes around the exception address', async function () {
      const { path, stopAddress } = await avDumpOnce();
      const dump = await openMinidump(path);
      try {
        // winedbg's normal dump holds 256 bytes around each thread's PC (in every dump it wrote
        // on this project's Wine; this check keeps it so).
        const code = await dump.readMemory(stopAddress, 4);
        expect(code, 'bytes at the faulting PC').to.not.equal(null);
        expect(code?.length).to.equal(4);
        // The stop disassembles as `movl $0x2a,0x10`: C7 04 25 10 00 00 00 2A 00 00 00 → starts C7.
        expect(code?.[0]).to.equal(0xc7);
      } finally {
        await dump.close();
      }
    });
  });

  describe('threads.exe: a full-memory dump (mdw.exe) and an attach dump (winedbg --minidump)', function () {
    before(async function () {
      this.timeout(120_000);
      await threadsDumpsOnce();
    });

    it('full dump: pid, every thread the program started, main module, Memory64List', async function () {
      const { facts, full } = await threadsDumpsOnce();
      const dump = okDump(await inspectDump(full, { threads: 'none' }));
      expect(dump.process.pid).to.equal(facts.pid);
      expect(dump.threads.length).to.be.at.least(THREADS_WORKERS + 1);
      expect(dump.threads.map((t) => t.id)).to.include.members(facts.workerIds);
      expect(dump.process.name).to.equal('threads.exe');
      expect(dump.kind).to.equal('full');
      expect(dump.flags).to.equal('0x2');
      expect(dump.memory.sources).to.deep.equal(['Memory64List']);
      expect(dump.memory.totalBytes).to.be.greaterThan(facts.bufferBytes);
      expect(dump.exception).to.equal(null);
      expect(dump.bytesRead).to.be.below(256 * 1024);
    });

    it('full dump: readMemory at the printed buffer address returns the known pattern', async function () {
      const { facts, full } = await threadsDumpsOnce();
      const dump = await openMinidump(full);
      try {
        const whole = await dump.readMemory(facts.bufferAddress, facts.bufferBytes);
        expect(whole?.length).to.equal(facts.bufferBytes);
        const mismatches = [...(whole ?? [])].filter((byte, i) => byte !== pattern(i)).length;
        expect(mismatches).to.equal(0);
        // An unaligned read from the middle still lines up with the pattern.
        const middle = await dump.readMemory(facts.bufferAddress + 12345n, 100);
        expect([...(middle ?? [])]).to.deep.equal(
          Array.from({ length: 100 }, (_, i) => pattern(12345 + i)),
        );
        // Null where nothing was captured: page 0 is never mapped.
        expect(await dump.readMemory(0x10n, 16)).to.equal(null);
      } finally {
        await dump.close();
      }
    });

    it('attach dump: the pid the program printed, a breakpoint on the break-in thread', async function () {
      const { facts, attach } = await threadsDumpsOnce();
      const dump = okDump(await inspectDump(attach));
      expect(dump.process.pid).to.equal(facts.pid);
      expect(dump.exception?.code).to.equal('0x80000003');
      expect(dump.exception?.name).to.equal('Breakpoint');
      const breakIn = dump.exception?.threadId;
      expect(dump.threads.map((t) => t.id)).to.include(breakIn);
      expect(facts.workerIds).to.not.include(breakIn);
      expect(dump.kind).to.equal('mini');
      expect(dump.threads.map((t) => t.id)).to.include.members(facts.workerIds);
    });
    it('MiniDumpWriteDump with flags Wine ignores: the flags as written, a warning per missing stream', async function () {
      const { facts, flagged } = await threadsDumpsOnce();
      const dump = okDump(await inspectDump(flagged.path));
      expect(dump.flags).to.equal(`0x${flagged.type.toString(16)}`);
      expect(dump.kind).to.equal('mini');
      expect(dump.process.pid).to.equal(facts.pid);
      const promised: [bigint, string][] = [
        [0x4n, 'HandleData'],
        [0x20n, 'UnloadedModuleList'],
        [0x800n, 'MemoryInfoList'],
        [0x1000n, 'ThreadInfoList'],
      ];
      const present = dump.streams.map((s) => s.name);
      const warnings = dump.warnings.join('\n');
      for (const [bit, stream] of promised) {
        expect((flagged.type & bit) !== 0n).to.equal(true);
        if (!present.includes(stream)) expect(warnings, stream).to.contain(`→ ${stream}`);
      }
    });

    it('MiniDumpWriteDump with an exception record: the code and the thread mdw.exe named', async function () {
      const { flagged } = await threadsDumpsOnce();
      const dump = okDump(await inspectDump(flagged.path));
      expect(dump.exception?.code).to.equal('0xc0000409');
      expect(dump.exception?.threadId).to.equal(flagged.threadId);
      expect(dump.exception?.name).to.match(/^Fail-fast exception/);
      expect(dump.threads.find((t) => t.id === flagged.threadId)?.faulting).to.equal(true);
    });
  });
});
