// `dump --engine dotnet-dump`: a dump of a live .NET process on Linux written by
// `dotnet-dump collect` (https://learn.microsoft.com/dotnet/core/diagnostics/dotnet-dump#dotnet-dump-collect),
// what a .NET user there runs by hand; the triggers read the process from /proc, never touching it.
// The file is an ELF core, read back by its header (the minidump reader reads Windows dumps only).
import { readFile } from 'node:fs/promises';
import type { CpuSource } from '../../../platform/common/types.js';
// The /proc/<pid>/stat reader the Wine host's CPU source uses: a .NET process on Linux is read
// the same way, by its own pid.
import { parseProcStatCpuMs } from '../../../platform/wine/process-cpu.js';
import { readElfCoreFile } from '../common/elf-core-file.js';
import type { DumpToolOptions, LiveDumpTool } from '../common/types.js';
import { locateDotnetTool } from './locate.js';
import { collectDump } from './tool-run.js';

/** The written file read back as a core (common/elf-core.ts): not ELF, not a core, or cut short. */
async function verifyCore(
  path: string,
): Promise<{ ok: boolean; problems: string[]; notes: string[] }> {
  const reading = await readElfCoreFile(path);
  const cut = reading.ok ? reading.facts.truncated : undefined;
  const problems = !reading.ok
    ? [reading.reason]
    : cut === undefined
      ? []
      : [`cut short: ${cut.size} bytes where its program headers reach ${cut.needed}`];
  return {
    ok: problems.length === 0,
    problems,
    notes: ['an ELF core dump (Linux): read it with analyze --engine dotnet-dump'],
  };
}

// /proc/<pid>/status lines: `VmRSS:	   31744 kB`, `VmSwap:	       0 kB`
const STATUS_KB_RE = /^(VmRSS|VmSwap):\s+(\d+) kB$/gm;

/**
 * The commit as ProcDump for Linux counts it: resident set plus swap ("Calc Commit: rss + nswap",
 * Sysinternals/ProcDump-for-Linux src/Monitor.c), here from /proc/<pid>/status (proc(5)).
 */
export function parseStatusCommitBytes(text: string): number | null {
  let kb = 0;
  let seen = false;
  for (const m of text.matchAll(STATUS_KB_RE)) {
    kb += Number(m[2]);
    seen = true;
  }
  return seen ? kb * 1024 : null;
}

async function readCommit(pid: number): Promise<{ bytes: number | null; note?: string }> {
  try {
    const bytes = parseStatusCommitBytes(await readFile(`/proc/${pid}/status`, 'utf8'));
    return bytes === null ? { bytes, note: `/proc/${pid}/status has no VmRSS` } : { bytes };
  } catch {
    return { bytes: null, note: `pid ${pid} is gone (/proc/${pid}/status)` };
  }
}

/** The CPU time of a native Linux process, from /proc/<pid>/stat (utime + stime). */
export function linuxProcessCpu(pid: number, cores: number): CpuSource {
  const path = `/proc/${pid}/stat`;
  return {
    describe: path,
    cores,
    async read() {
      try {
        const cpuMs = parseProcStatCpuMs(await readFile(path, 'utf8'));
        return cpuMs === null ? null : { cpuMs, atMs: performance.now() };
      } catch {
        return null;
      }
    },
  };
}

export const dotnetLiveDump: LiveDumpTool = {
  async collect(pid, path, kind, options: DumpToolOptions) {
    const tool = locateDotnetTool('dotnet-dump', options.env, options.debuggerPath);
    return collectDump(tool, pid, path, { ...options, kind });
  },
  verify: verifyCore,
  readCommit,
};
