// Whose dumps a `--from-dumps` series is: the process id and name each dump records (a minidump's
// MiscInfo process id and first module, the process image; a Linux core's NT_PRPSINFO note), so
// the report names the process instead of "pid 0". Dumps of different processes in one series
// are said in a warning; the report names the last one's.
import type { BytePath } from '../../common/byte-path.js';
import { readElfCoreProcess } from './elf-core-process.js';

export interface DumpTargetEntry {
  file: string;
  path: BytePath;
  kind: 'minidump' | 'elf-core';
  reading?: { pid?: number; name?: string };
}

export async function seriesTarget(
  entries: readonly DumpTargetEntry[],
  warnings: string[],
): Promise<{ pid: number; name?: string } | undefined> {
  const seen = new Map<number, { pid: number; name?: string }>();
  let last: { pid: number; name?: string } | undefined;
  for (const e of entries) {
    const found =
      e.kind === 'elf-core'
        ? await readElfCoreProcess(e.path).catch(() => undefined)
        : e.reading?.pid === undefined
          ? undefined
          : {
              pid: e.reading.pid,
              ...(e.reading.name === undefined ? {} : { name: e.reading.name }),
            };
    if (found === undefined) continue;
    seen.set(found.pid, found);
    last = found;
  }
  if (seen.size > 1) {
    const list = [...seen.values()].map((t) => `${t.name ?? '?'} (pid ${t.pid})`).join(', ');
    warnings.push(`the dumps come from ${seen.size} processes: ${list}; the report names the last`);
  }
  return last;
}
