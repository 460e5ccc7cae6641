// Byte-level surgery on copies of real dumps, located with a few lines of independent directory
// parsing (MINIDUMP_HEADER and MINIDUMP_DIRECTORY, https://learn.microsoft.com/windows/win32/api/
// minidumpapiset/ns-minidumpapiset-minidump_header), so the corruption tests do not trust the reader to find what they
// break.
import {
  copyFileSync,
  openSync,
  closeSync,
  readSync,
  writeSync,
  truncateSync,
  statSync,
} from 'node:fs';
import { join } from 'node:path';
import { dumpDir } from './real-dumps.js';

export interface RawStream {
  /** Byte offset of this directory entry in the file. */
  entryOffset: number;
  type: number;
  size: number;
  rva: number;
}

function readAt(path: string, offset: number, length: number): Buffer {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const n = readSync(fd, buf, 0, length, offset);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

export function rawDirectory(path: string): RawStream[] {
  const header = readAt(path, 0, 32);
  const count = header.readUInt32LE(8);
  const rva = header.readUInt32LE(12);
  const dir = readAt(path, rva, count * 12);
  return Array.from({ length: count }, (_, i) => ({
    entryOffset: rva + i * 12,
    type: dir.readUInt32LE(i * 12),
    size: dir.readUInt32LE(i * 12 + 4),
    rva: dir.readUInt32LE(i * 12 + 8),
  }));
}

export function rawStream(path: string, type: number): RawStream {
  const found = rawDirectory(path).find((s) => s.type === type);
  if (!found) throw new Error(`${path} has no stream of type ${type}`);
  return found;
}

export function readBytes(path: string, offset: number, length: number): Buffer {
  return readAt(path, offset, length);
}

let serial = 0;

/** A copy of `source` in the run's dump directory, changed by `edit` (positioned writes). */
export function corruptCopy(
  source: string,
  label: string,
  edit: (patch: (offset: number, bytes: Buffer) => void, path: string) => void,
): string {
  const path = join(dumpDir(), `corrupt-${serial++}-${label}.dmp`);
  copyFileSync(source, path);
  const fd = openSync(path, 'r+');
  try {
    edit((offset, bytes) => writeSync(fd, bytes, 0, bytes.length, offset), path);
  } finally {
    closeSync(fd);
  }
  return path;
}

/** A copy of `source` cut to `length` bytes. */
export function truncatedCopy(source: string, length: number): string {
  return corruptCopy(source, `cut-${length}`, (_patch, path) => truncateSync(path, length));
}

export function u32le(value: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(value >>> 0);
  return b;
}

export function u64le(value: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(value);
  return b;
}

export function fileSizeOf(path: string): number {
  return statSync(path).size;
}

/** Deterministic bytes (xorshift32), so a failing fuzz case can be replayed from its seed. */
export function seededBytes(seed: number, length: number): Buffer {
  let x = seed >>> 0 || 1;
  const out = Buffer.alloc(length);
  for (let i = 0; i < length; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
