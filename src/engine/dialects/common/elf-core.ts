// ELF core files, the dumps of Linux processes that dotnet-dump reads (what `dotnet-dump collect`
// and the runtime's createdump write), read just far enough to say what a file is before a
// dotnet-dump process is started on it: a Windows minidump, an executable, a cut file or text get a
// clear reason at once. From the notes it also takes what the record wants and SOS does not print:
// the process id and name (NT_PRPSINFO) and the signal that ended it (NT_SIGINFO, present in
// crash dumps only). Pure: reads through the positioned `read` it is given, bounded.
// Layouts: the System V gABI ELF header and program header
// (https://refspecs.linuxfoundation.org/elf/gabi4+/ch4.eheader.html, ch5.pheader.html), the note
// types and structures of Linux's include/uapi/linux/elf.h and include/linux/elfcore.h
// (struct elf_prpsinfo: pr_pid at 24, pr_fname[16] at 40 on 64-bit).

export interface ElfCoreFacts {
  /** `x86_64`, `aarch64`, `arm`, or `machine 0x…`. */
  machine: string;
  pid?: number;
  /** NT_PRPSINFO's pr_fname: the executable's name, at most 15 characters. */
  processName?: string;
  /** NT_SIGINFO's si_signo: the signal the process died of (absent in a dump of a live process). */
  signal?: number;
  /** NT_PRSTATUS notes: one per thread. */
  threadCount: number;
  /** The file ends before what its program headers say it holds. */
  truncated?: { needed: number; size: number };
}

export type ElfCoreReading = { ok: true; facts: ElfCoreFacts } | { ok: false; reason: string };

export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

const ELF_MAGIC = Buffer.from([0x7f, 0x45, 0x4c, 0x46]);
const MDMP_MAGIC = Buffer.from('MDMP', 'latin1');
const ET_CORE = 4;
const ELF_TYPES: Record<number, string> = {
  0: 'an ELF file of no type',
  1: 'an ELF relocatable object (.o)',
  2: 'an ELF executable',
  3: 'an ELF shared object or position-independent executable',
};
const MACHINES: Record<number, string> = { 3: 'x86', 40: 'arm', 62: 'x86_64', 183: 'aarch64' };
const PT_LOAD = 1;
const PT_NOTE = 4;
const NT_PRSTATUS = 1;
const NT_PRPSINFO = 3;
const NT_SIGINFO = 0x53494749;
/** Notes beyond this are not read: createdump's NT_FILE of a big process is tens of KB. */
const MAX_NOTES_BYTES = 4 * 1024 * 1024;
/** 65535 program headers of 56 bytes at most (e_phnum is 16 bits): 3.5 MB, bounded already. */
const PHDR64_SIZE = 56;

/** Signal names for the record (Linux x86_64/arm64 numbers, signal(7)). */
export const SIGNAL_NAMES: Readonly<Record<number, string>> = {
  1: 'SIGHUP',
  2: 'SIGINT',
  3: 'SIGQUIT',
  4: 'SIGILL',
  5: 'SIGTRAP',
  6: 'SIGABRT',
  7: 'SIGBUS',
  8: 'SIGFPE',
  9: 'SIGKILL',
  11: 'SIGSEGV',
  13: 'SIGPIPE',
  15: 'SIGTERM',
};

export async function readElfCore(read: ReadAt, size: number): Promise<ElfCoreReading> {
  if (size === 0) return { ok: false, reason: 'the file is empty' };
  const head = await read(0, Math.min(size, 64));
  if (head.subarray(0, 4).equals(MDMP_MAGIC)) {
    return {
      ok: false,
      reason:
        'a Windows minidump (MDMP), not a Linux core dump: analyze it with --engine builtin or cdb',
    };
  }
  if (!head.subarray(0, 4).equals(ELF_MAGIC)) {
    return { ok: false, reason: `not an ELF core dump (it starts with ${describeStart(head)})` };
  }
  if (head.length < 64 && head[4] === 2) {
    return { ok: false, reason: `an ELF header cut short (${size} bytes of 64)` };
  }
  const type = head.length >= 18 ? head.readUInt16LE(16) : -1;
  if (head[5] !== 1)
    return { ok: false, reason: 'a big-endian ELF file: dotnet-dump reads little-endian cores' };
  if (type !== ET_CORE) {
    return {
      ok: false,
      reason: `${ELF_TYPES[type] ?? `an ELF file of type ${type}`}, not a core dump (ELF type 4)`,
    };
  }
  const machineCode = head.readUInt16LE(18);
  const machine = MACHINES[machineCode] ?? `machine 0x${machineCode.toString(16)}`;
  // 32-bit cores (ELFCLASS32) go to dotnet-dump as they are: only the 64-bit layout is read here.
  if (head[4] !== 2) return { ok: true, facts: { machine, threadCount: 0 } };
  const phoff = Number(head.readBigUInt64LE(32));
  const phentsize = head.readUInt16LE(54);
  const phnum = head.readUInt16LE(56);
  const facts: ElfCoreFacts = { machine, threadCount: 0 };
  if (phentsize < PHDR64_SIZE || phnum === 0) {
    return { ok: false, reason: `a core dump with no program headers (e_phnum ${phnum})` };
  }
  const tableEnd = phoff + phentsize * phnum;
  if (tableEnd > size) {
    facts.truncated = { needed: tableEnd, size };
    return { ok: true, facts };
  }
  const table = await read(phoff, phentsize * phnum);
  let needed = tableEnd;
  const notes: { offset: number; size: number }[] = [];
  for (let i = 0; i < phnum; i++) {
    const at = i * phentsize;
    const pType = table.readUInt32LE(at);
    const offset = Number(table.readBigUInt64LE(at + 8));
    const fileSize = Number(table.readBigUInt64LE(at + 32));
    if (pType === PT_LOAD || pType === PT_NOTE) needed = Math.max(needed, offset + fileSize);
    if (pType === PT_NOTE) notes.push({ offset, size: fileSize });
  }
  if (needed > size) facts.truncated = { needed, size };
  for (const note of notes) {
    const length = Math.min(note.size, MAX_NOTES_BYTES, Math.max(0, size - note.offset));
    if (length <= 0) continue;
    readNotes(await read(note.offset, length), facts);
  }
  return { ok: true, facts };
}

/** Folds the notes of one PT_NOTE segment (Elf64_Nhdr: namesz, descsz, type; 4-byte aligned). */
function readNotes(bytes: Buffer, facts: ElfCoreFacts): void {
  let at = 0;
  while (at + 12 <= bytes.length) {
    const nameSize = bytes.readUInt32LE(at);
    const descSize = bytes.readUInt32LE(at + 4);
    const type = bytes.readUInt32LE(at + 8);
    const descAt = at + 12 + align4(nameSize);
    const end = descAt + descSize;
    if (end > bytes.length) return;
    const desc = bytes.subarray(descAt, end);
    if (type === NT_PRSTATUS) facts.threadCount++;
    else if (type === NT_PRPSINFO && desc.length >= 56) {
      facts.pid = desc.readUInt32LE(24);
      const name = desc.subarray(40, 56);
      const nul = name.indexOf(0);
      const text = name.subarray(0, nul < 0 ? name.length : nul).toString('utf8');
      if (text !== '') facts.processName = text;
    } else if (type === NT_SIGINFO && desc.length >= 4) {
      const signal = desc.readInt32LE(0);
      if (signal > 0) facts.signal = signal;
    }
    at = end + ((4 - (descSize % 4)) % 4);
  }
}

function align4(n: number): number {
  return (n + 3) & ~3;
}

/** The first bytes in words: printable text as text, anything else as hex. */
function describeStart(head: Buffer): string {
  const first = head.subarray(0, 8);
  const printable = [...first].every((b) => b >= 0x20 && b < 0x7f);
  if (printable && first.length > 0) return `"${first.toString('latin1')}"`;
  return first.length === 0 ? 'nothing' : `bytes ${first.toString('hex')}`;
}
