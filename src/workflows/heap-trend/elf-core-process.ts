// The process a Linux core was written from: pid and command name from its NT_PRPSINFO note, so
// that `heap-trend --from-dumps` over `dotnet-dump collect` cores says whose they are instead of
// "pid 0". createdump writes the note (dotnet/runtime src/coreclr/debug/createdump/
// dumpwriterelf.cpp, WriteProcessInfo); the core is read by the one ELF core reader
// (engine/dialects/common/elf-core.ts), bounded.
import type { BytePath } from '../../common/byte-path.js';
import { readElfCoreFile } from '../../engine/dialects/common/elf-core-file.js';

export interface ElfCoreProcess {
  pid: number;
  /** The command name (pr_fname, at most 15 characters: the kernel's comm). */
  name?: string;
}

/** The pid and name of a 64-bit little-endian ELF core; undefined when it has no NT_PRPSINFO. */
export async function readElfCoreProcess(path: BytePath): Promise<ElfCoreProcess | undefined> {
  const reading = await readElfCoreFile(path);
  if (!reading.ok || reading.facts.pid === undefined) return undefined;
  const name = reading.facts.processName;
  return { pid: reading.facts.pid, ...(name === undefined ? {} : { name }) };
}
