// What `.dump` leaves on disk in the emulator: a SYNTHETIC minidump, NOT a real one. cdb's real
// dump bytes (dbgcore's full memory image of a Windows process) are not something we can produce
// here, so the file is composed field by field with the minidump tests' builder
// (test/minidump/helpers/dump-builder.ts). It is small but valid, so the harness's own reader
// (src/minidump, inspectDump) can read it back the way the workflows verify a dump cdb wrote:
//   SystemInfo   amd64, Windows 10.0.19041 (a plausible host, not taken from any transcript)
//   MiscInfo     v1, the emulated process id only
//   ThreadList   one thread: the thread of the exception stop, or a made-up id
//   ModuleList   one module: the emulated process's main image
//   Exception    only when stopped at an exception event: that event's code and thread
//   /ma          Memory64List: a 4 KiB stack range and a 1 MiB range. The reader calls a dump
//                "full" only when its Memory64List holds >= 1 MiB (src/processor/dump-kind.ts:
//                no real process has less), so the second range is what makes `/ma` read as full.
//   /m           MemoryList: the stack range and one 256-byte range ("mini")
//   CommentA     says in the file itself that it is synthetic (`.dump /c` writes the same stream)
// Header flags claim only what is there: MiniDumpWithFullMemory (0x2) for /ma, 0 for /m. Real cdb
// /ma sets more bits (handles, thread info, …) whose streams this file does not have.
// No register context, no memory contents: all captured bytes are zero.
import { writeFileSync } from 'node:fs';
import { DumpBuilder, struct } from '../minidump/helpers/dump-builder.js';

const STREAM = {
  ThreadList: 3,
  ModuleList: 4,
  MemoryList: 5,
  Exception: 6,
  SystemInfo: 7,
  Memory64List: 9,
  CommentA: 10,
  MiscInfo: 15,
} as const;

export const SYNTHETIC_DUMP_COMMENT =
  'cdb-harness test emulator: synthetic minidump, not a real process dump';

const STACK_BASE = 0x000000a1_2b3c0000n;
const STACK_SIZE = 0x1000;
const HEAP_BASE = 0x0000019a_00000000n;
/** Big enough for the reader's "full" threshold (FULL_MEMORY_THRESHOLD, 1 MiB). */
const FULL_HEAP_SIZE = 1024 * 1024;
const MINI_HEAP_SIZE = 0x100;
const IMAGE_BASE = 0x00007ff6_52e50000n;
const IMAGE_SIZE = 0x29000;
const TEB = 0x000000a1_2b1f0000n;

export interface SyntheticDumpSpec {
  /** `/ma` (Memory64List, "full") or not (MemoryList, "mini"). */
  fullMemory: boolean;
  pid: number;
  /** Main module file name, e.g. `app.exe`; stored as `C:\app\NAME`. */
  processName: string;
  /** The thread the dump is taken on (the exception thread when there is one). */
  threadId: number;
  /** Set when the emulator is stopped at an exception event. */
  exception?: { code: number; threadId: number };
  /** header TimeDateStamp; defaults to now. */
  timestamp?: number;
}

export function buildSyntheticDump(spec: SyntheticDumpSpec): Buffer {
  const streamCount = spec.exception === undefined ? 6 : 7;
  const b = new DumpBuilder(streamCount);
  const modulePath = b.string(`C:\\app\\${spec.processName}`);
  const heapSize = spec.fullMemory ? FULL_HEAP_SIZE : MINI_HEAP_SIZE;

  // MINIDUMP_SYSTEM_INFO, 56 bytes: PROCESSOR_ARCHITECTURE_AMD64 (9), level 6, 4 CPUs,
  // workstation, 10.0.19041, VER_PLATFORM_WIN32_NT (2), no CSD string.
  b.stream(
    STREAM.SystemInfo,
    struct(56, (s) => {
      s.writeUInt16LE(9, 0);
      s.writeUInt16LE(6, 2);
      s.writeUInt8(4, 6);
      s.writeUInt8(1, 7);
      s.writeUInt32LE(10, 8);
      s.writeUInt32LE(0, 12);
      s.writeUInt32LE(19041, 16);
      s.writeUInt32LE(2, 20);
    }),
  );
  // MINIDUMP_MISC_INFO (version 1, 24 bytes) with MINIDUMP_MISC1_PROCESS_ID only.
  b.stream(
    STREAM.MiscInfo,
    struct(24, (m) => {
      m.writeUInt32LE(24, 0);
      m.writeUInt32LE(0x1, 4);
      m.writeUInt32LE(spec.pid, 8);
    }),
  );

  // Memory first, so the thread's stack descriptor can point at its bytes.
  let stackRva: number;
  if (spec.fullMemory) {
    // Memory64List bytes lie back to back from BaseRva, in descriptor order.
    const stack = b.append(Buffer.alloc(STACK_SIZE));
    b.append(Buffer.alloc(heapSize));
    stackRva = stack;
    b.stream(
      STREAM.Memory64List,
      struct(16 + 2 * 16, (l) => {
        l.writeBigUInt64LE(2n, 0);
        l.writeBigUInt64LE(BigInt(stack), 8);
        l.writeBigUInt64LE(STACK_BASE, 16);
        l.writeBigUInt64LE(BigInt(STACK_SIZE), 24);
        l.writeBigUInt64LE(HEAP_BASE, 32);
        l.writeBigUInt64LE(BigInt(heapSize), 40);
      }),
    );
  } else {
    stackRva = b.append(Buffer.alloc(STACK_SIZE));
    const heapRva = b.append(Buffer.alloc(heapSize));
    b.stream(
      STREAM.MemoryList,
      struct(4 + 2 * 16, (l) => {
        l.writeUInt32LE(2, 0);
        l.writeBigUInt64LE(STACK_BASE, 4);
        l.writeUInt32LE(STACK_SIZE, 12);
        l.writeUInt32LE(stackRva, 16);
        l.writeBigUInt64LE(HEAP_BASE, 20);
        l.writeUInt32LE(heapSize, 28);
        l.writeUInt32LE(heapRva, 32);
      }),
    );
  }

  // One MINIDUMP_THREAD (48 bytes): NORMAL_PRIORITY_CLASS (0x20), no context.
  b.stream(
    STREAM.ThreadList,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(1, 0)),
      struct(48, (t) => {
        t.writeUInt32LE(spec.threadId, 0);
        t.writeUInt32LE(0x20, 8);
        t.writeBigUInt64LE(TEB, 16);
        t.writeBigUInt64LE(STACK_BASE, 24);
        t.writeUInt32LE(STACK_SIZE, 32);
        t.writeUInt32LE(stackRva, 36);
      }),
    ]),
  );
  // One MINIDUMP_MODULE (108 bytes): no version resource, no CodeView record.
  b.stream(
    STREAM.ModuleList,
    Buffer.concat([
      struct(4, (s) => s.writeUInt32LE(1, 0)),
      struct(108, (m) => {
        m.writeBigUInt64LE(IMAGE_BASE, 0);
        m.writeUInt32LE(IMAGE_SIZE, 8);
        m.writeUInt32LE(modulePath, 20);
      }),
    ]),
  );
  if (spec.exception !== undefined) {
    // MINIDUMP_EXCEPTION_STREAM (168 bytes): thread, MINIDUMP_EXCEPTION, no context. The address
    // is unknown (the banners name a symbol, not an address): 0.
    const { code, threadId } = spec.exception;
    b.stream(
      STREAM.Exception,
      struct(168, (e) => {
        e.writeUInt32LE(threadId, 0);
        e.writeUInt32LE(code, 8);
      }),
    );
  }
  b.stream(STREAM.CommentA, Buffer.from(`${SYNTHETIC_DUMP_COMMENT}\0`, 'latin1'));
  return b.build({
    flags: spec.fullMemory ? 0x2n : 0n,
    timestamp: spec.timestamp ?? Math.floor(Date.now() / 1000),
  });
}

/** Write the synthetic dump owner-only, as the harness expects of dump files. */
export function writeSyntheticDump(path: string, spec: SyntheticDumpSpec): void {
  writeFileSync(path, buildSyntheticDump(spec), { mode: 0o600 });
}

export interface DumpCommand {
  path: string;
  overwrite: boolean;
  fullMemory: boolean;
}

/** Parse `.dump [/o] [/ma|/m…] [/c comment] "PATH"`; null when no path is given. */
export function parseDumpCommand(command: string): DumpCommand | null {
  const rest = command.slice('.dump'.length).trim();
  // 'PATH' is the last argument: '"C:\\out dir\\x.dmp"' or 'C:\\x.dmp'
  const quoted = /"([^"]+)"\s*$/.exec(rest);
  const bare = /(\S+)\s*$/.exec(rest);
  const path = quoted?.[1] ?? bare?.[1];
  // A bare last word like "/ma" or "-u" is an option, not a path ("/tmp/x.dmp" is a path).
  if (path === undefined || (quoted === null && /^[/-][a-zA-Z]{1,12}$/.test(path))) return null;
  const options =
    quoted === null ? rest.slice(0, rest.length - path.length) : rest.slice(0, quoted.index);
  const words = options.split(/\s+/).filter((w) => w !== '');
  return {
    path,
    overwrite: words.some((w) => w.toLowerCase() === '/o'),
    // "/ma", "/mA", "/mAfFhuty" (BugId), "/mf": full memory; "/m", "/miR": not
    fullMemory: words.some((w) => /^\/m[a-z]*[aAf]/i.test(w)),
  };
}
