// The process a Linux core was written from: pid and command name from its NT_PRPSINFO note, so
// that `heap-trend --from-dumps` over `dotnet-dump collect` cores says whose they are instead of
// "pid 0". createdump writes the note (dotnet/runtime src/coreclr/debug/createdump/
// dumpwriterelf.cpp, WriteProcessInfo); the layout is the kernel's `struct elf_prpsinfo`
// (include/uapi/linux/elfcore.h) for x86-64 and arm64 (64-bit, little-endian):
//   0 pr_state, pr_sname, pr_zomb, pr_nice (4 chars), 8 pr_flag (8), 16 pr_uid, 20 pr_gid,
//   24 pr_pid, 28 pr_ppid, 32 pr_pgrp, 36 pr_sid (4 each), 40 pr_fname[16], 56 pr_psargs[80].
// Only the ELF header, the program headers and the note segment are read, each bounded.
import { open } from 'node:fs/promises';
import type { BytePath } from '../../common/byte-path.js';

export interface ElfCoreProcess {
  pid: number;
  /** The command name (pr_fname, at most 15 characters: the kernel's comm). */
  name?: string;
}

const PT_NOTE = 4;
const NT_PRPSINFO = 3;
const PRPSINFO_SIZE = 136;
/** Program headers read at most, and note bytes: a core's notes are a few hundred KB at most. */
const MAX_PHDRS = 65_535;
const MAX_NOTE_BYTES = 8 * 1024 * 1024;

/** Reads NT_PRPSINFO from the notes of `bytes` (one PT_NOTE segment's contents). */
export function prpsinfoFromNotes(bytes: Buffer): ElfCoreProcess | undefined {
  let at = 0;
  while (at + 12 <= bytes.length) {
    const namesz = bytes.readUInt32LE(at);
    const descsz = bytes.readUInt32LE(at + 4);
    const type = bytes.readUInt32LE(at + 8);
    const descAt = at + 12 + align4(namesz);
    if (descAt + descsz > bytes.length) return undefined;
    if (type === NT_PRPSINFO && descsz >= PRPSINFO_SIZE) {
      const pid = bytes.readInt32LE(descAt + 24);
      const raw = bytes.subarray(descAt + 40, descAt + 56);
      const end = raw.indexOf(0);
      const name = raw.subarray(0, end < 0 ? raw.length : end).toString('utf8');
      return { pid, ...(name === '' ? {} : { name }) };
    }
    at = descAt + align4(descsz);
  }
  return undefined;
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** The pid and name of a 64-bit little-endian ELF core; undefined when it has no NT_PRPSINFO. */
export async function readElfCoreProcess(path: BytePath): Promise<ElfCoreProcess | undefined> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(64);
    if ((await handle.read(header, 0, 64, 0)).bytesRead < 64) return undefined;
    // e_ident: 7f 'E' 'L' 'F', EI_CLASS 2 (64-bit), EI_DATA 1 (little-endian)
    if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) {
      return undefined;
    }
    const phoff = Number(header.readBigUInt64LE(32));
    const phentsize = header.readUInt16LE(54);
    const phnum = Math.min(header.readUInt16LE(56), MAX_PHDRS);
    if (phentsize < 56 || phnum === 0) return undefined;
    const table = Buffer.alloc(phentsize * phnum);
    await handle.read(table, 0, table.length, phoff);
    for (let i = 0; i < phnum; i++) {
      const entry = i * phentsize;
      if (table.readUInt32LE(entry) !== PT_NOTE) continue;
      const offset = Number(table.readBigUInt64LE(entry + 8));
      const size = Math.min(Number(table.readBigUInt64LE(entry + 32)), MAX_NOTE_BYTES);
      const notes = Buffer.alloc(size);
      const { bytesRead } = await handle.read(notes, 0, size, offset);
      const found = prpsinfoFromNotes(notes.subarray(0, bytesRead));
      if (found !== undefined) return found;
    }
    return undefined;
  } finally {
    await handle.close();
  }
}
