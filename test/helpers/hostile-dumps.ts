// Hostile minidumps built byte by byte (test/minidump/helpers/dump-builder.ts), for the bounds the
// reader and the batch must hold: a ModuleList claiming a huge number of modules whose names and
// CodeView records lie far past the end of the file, a ThreadList of many threads, a module list
// whose names and CodeView records were cut off with the end of the file.
import { DumpBuilder, struct } from '../minidump/helpers/dump-builder.js';

const MODULE_LIST = 4;
const THREAD_LIST = 3;
const SYSTEM_INFO = 7;
const MODULE_ENTRY = 108;
const THREAD_ENTRY = 48;

/** An RVA no file of this size reaches (the million-module dump of issue 22 used it). */
export const FAR_RVA = 0xfffffff0;

function moduleEntry(i: number, nameRva: number, cvRva: number, cvSize: number): Buffer {
  return struct(MODULE_ENTRY, (s) => {
    s.writeBigUInt64LE(0x10000000n + BigInt(i) * 0x10000n, 0);
    s.writeUInt32LE(0x10000, 8);
    s.writeUInt32LE(0x5f000000 + i, 16);
    s.writeUInt32LE(nameRva, 20);
    s.writeUInt32LE(cvSize, 76);
    s.writeUInt32LE(cvRva, 80);
  });
}

/** A ModuleList of `count` modules, every name and CodeView RVA at FAR_RVA. */
export function manyModulesDump(count: number): Buffer {
  const b = new DumpBuilder(1);
  const list = Buffer.alloc(4 + count * MODULE_ENTRY);
  list.writeUInt32LE(count, 0);
  const entry = moduleEntry(0, FAR_RVA, FAR_RVA, 64);
  for (let i = 0; i < count; i++) entry.copy(list, 4 + i * MODULE_ENTRY);
  b.stream(MODULE_LIST, list);
  return b.build();
}

/**
 * A whole dump of `modules` modules with names and RSDS CodeView records placed after the module
 * list, then the same bytes cut so that the names and records are gone: every stream is whole,
 * only what it references is missing.
 */
export function cutReferencesDump(modules: number): { whole: Buffer; cut: Buffer } {
  const b = new DumpBuilder(2);
  b.stream(SYSTEM_INFO, systemInfoAmd64());
  const listSize = 4 + modules * MODULE_ENTRY;
  // The list goes next (4-aligned), its strings and records right after it.
  const listRva = align4(b.end);
  let next = align4(listRva + listSize);
  const tail: Buffer[] = [];
  const list = Buffer.alloc(listSize);
  list.writeUInt32LE(modules, 0);
  for (let i = 0; i < modules; i++) {
    const name = minidumpString(`C:\\app\\mod${i}.dll`);
    const nameRva = next;
    next = align4(next + name.length);
    const cv = Buffer.concat([
      struct(24, (s) => {
        s.write('RSDS', 0, 'latin1');
        s.writeUInt32LE(0x1000 + i, 4);
        s.writeUInt32LE(1, 20);
      }),
      Buffer.from(`mod${i}.pdb\0`, 'latin1'),
    ]);
    const cvRva = next;
    next = align4(next + cv.length);
    moduleEntry(i, nameRva, cvRva, cv.length).copy(list, 4 + i * MODULE_ENTRY);
    tail.push(name, cv);
  }
  b.stream(MODULE_LIST, list);
  for (const piece of tail) b.append(piece);
  const whole = b.build();
  return { whole, cut: whole.subarray(0, listRva + listSize) };
}

/** A ThreadList of `count` threads, each with a context (zeros) and no stack memory. */
export function manyThreadsDump(count: number): Buffer {
  const b = new DumpBuilder(2);
  b.stream(SYSTEM_INFO, systemInfoAmd64());
  const context = b.append(Buffer.alloc(1232));
  const list = Buffer.alloc(4 + count * THREAD_ENTRY);
  list.writeUInt32LE(count, 0);
  for (let i = 0; i < count; i++) {
    const at = 4 + i * THREAD_ENTRY;
    list.writeUInt32LE(i + 1, at);
    list.writeUInt32LE(1232, at + 40);
    list.writeUInt32LE(context, at + 44);
  }
  b.stream(THREAD_LIST, list);
  return b.build();
}

function systemInfoAmd64(): Buffer {
  return struct(56, (s) => {
    s.writeUInt16LE(9, 0); // PROCESSOR_ARCHITECTURE_AMD64
    s.writeUInt8(1, 6); // NumberOfProcessors
    s.writeUInt8(1, 7); // ProductType: workstation
    s.writeUInt32LE(10, 8);
    s.writeUInt32LE(2, 20); // VER_PLATFORM_WIN32_NT
  });
}

function minidumpString(text: string): Buffer {
  const body = Buffer.from(`${text}\0`, 'utf16le');
  const out = Buffer.alloc(4 + body.length);
  out.writeUInt32LE(body.length - 2, 0);
  body.copy(out, 4);
  return out;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/**
 * A ModuleList of `modules` modules whose names all point at one string of `nameChars`
 * characters (issue 30: 16,384 modules naming one 64 KB string made a 1.9 MB dump whose record,
 * through the queue, was 480 MB). `salt` changes the header's timestamp: another content.
 */
export function repeatedNameDump(modules: number, nameChars: number, salt = 0): Buffer {
  const b = new DumpBuilder(2);
  b.stream(SYSTEM_INFO, systemInfoAmd64());
  const nameRva = b.append(minidumpString('N'.repeat(nameChars)));
  const list = Buffer.alloc(4 + modules * MODULE_ENTRY);
  list.writeUInt32LE(modules, 0);
  for (let i = 0; i < modules; i++) moduleEntry(i, nameRva, 0, 0).copy(list, 4 + i * MODULE_ENTRY);
  b.stream(MODULE_LIST, list);
  return b.build({ timestamp: 1_700_000_000 + salt });
}
