// What `.dump` leaves on disk in the emulator. NOT a real dump: a 32-byte MINIDUMP_HEADER with the
// `MDMP` signature, version 0xa793 and zero streams, so code that checks "file exists, non-empty,
// starts with MDMP" has something to check. A reader that walks streams finds none.
import { writeFileSync } from 'node:fs';

const MINIDUMP_SIGNATURE = 0x504d444d; // 'MDMP' little-endian
const MINIDUMP_VERSION = 0xa793;

/** `/ma` sets MiniDumpWithFullMemory (0x2) among others; `/m` alone is MiniDumpNormal (0). */
export function writeFakeDump(path: string, fullMemory: boolean): void {
  const header = Buffer.alloc(32);
  header.writeUInt32LE(MINIDUMP_SIGNATURE, 0);
  header.writeUInt32LE(MINIDUMP_VERSION, 4);
  header.writeUInt32LE(0, 8); // NumberOfStreams
  header.writeUInt32LE(32, 12); // StreamDirectoryRva: just past the header
  header.writeUInt32LE(0, 16); // CheckSum
  header.writeUInt32LE(Math.floor(Date.now() / 1000), 20); // TimeDateStamp
  header.writeBigUInt64LE(fullMemory ? 0x1826n : 0n, 24); // Flags: /ma = full memory, handles, threads…
  writeFileSync(path, header, { mode: 0o600 });
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
