// The CPU time a Windows process has used, read without touching it (no attach, no suspension),
// for ProcDump's -c/-cl triggers. Where the process runs decides how:
// - Windows: the process's own times (Get-Process TotalProcessorTime, which is GetProcessTimes'
//   user + kernel time: https://learn.microsoft.com/dotnet/api/system.diagnostics.process.totalprocessortime);
// - Wine on Linux: every Windows process is a Linux process (the Wine loader running it), so its
//   CPU time is that Linux process's utime + stime in /proc/<pid>/stat (proc(5)). The Windows
//   pid is wineserver's own number and appears nowhere in /proc, so the host process is found by
//   its command line: Wine puts the Windows path of the image in argv[0]
//   (`C:\windows\system32\services.exe`, or the path given to `wine`, `build/targets/idle.exe`).
//   Two Wine processes running the same image cannot be told apart that way: refused, saying so.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { execa } from 'execa';
import { TargetError } from '../../../errors.js';

export interface CpuSample {
  /** User + kernel CPU time used so far, in milliseconds. */
  cpuMs: number;
  /** When it was read (performance.now()). */
  atMs: number;
}

export interface CpuSource {
  /** How the time is read, for messages and events (`/proc/4242/stat (Wine host of pid 32)`). */
  readonly describe: string;
  /** Logical processors: 100 % of all of them is the whole machine. */
  readonly cores: number;
  /** The time now; null when the process has gone. */
  read(): Promise<CpuSample | null>;
}

/** Linux reports CPU times in clock ticks of USER_HZ, 100 on every Linux ABI (proc(5), times(2)). */
const USER_HZ = 100;

// /proc/<pid>/stat: `18243 (wine64-preloade) S 1 18243 … utime stime …`; the name may hold
// spaces and parentheses, so fields are counted after the last `)`: utime is field 14, stime 15.
export function parseProcStatCpuMs(text: string): number | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text
    .slice(close + 1)
    .trim()
    .split(/\s+/);
  // fields[0] is field 3 (state): utime = field 14 → index 11, stime → index 12.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return null;
  return ((utime + stime) * 1000) / USER_HZ;
}

/** The image file name of a Wine process from its argv[0], Windows or Unix path alike. */
export function wineImageName(cmdline: string): string | null {
  const argv0 = cmdline.split('\0')[0] ?? '';
  if (argv0 === '') return null;
  const base = argv0.split(/[\\/]/).pop() ?? '';
  return /\.exe$/i.test(base) ? base : null;
}

// /proc/<pid>/exe of a Wine process: /usr/lib/wine/wine64, …/wine64-preloader, …/wine-preloader
const WINE_LOADER_RE = /\/wine(?:64)?(?:-preloader)?$/;

export interface WineHostCandidate {
  linuxPid: number;
  cmdline: string;
}

/** Linux processes that are Wine loaders running an image named `name` (any case). */
export async function wineHostCandidates(
  name: string,
  procRoot = '/proc',
): Promise<WineHostCandidate[]> {
  const wanted = name.toLowerCase();
  const found: WineHostCandidate[] = [];
  for (const entry of await readdir(procRoot)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = await readFile(`${procRoot}/${entry}/cmdline`, 'latin1');
      if (wineImageName(cmdline)?.toLowerCase() !== wanted) continue;
      const exe = await readlink(`${procRoot}/${entry}/exe`).catch(() => '');
      if (!WINE_LOADER_RE.test(exe)) continue;
      const stat = await readFile(`${procRoot}/${entry}/stat`, 'utf8');
      if (/\) [ZX] /.test(stat)) continue; // a zombie is not running anything
      found.push({
        linuxPid: Number(entry),
        cmdline: cmdline.replace(/\0+$/, '').replace(/\0/g, ' '),
      });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/** The Linux process hosting Windows pid `pid` (image `name`) under Wine, or a TargetError. */
async function wineHostPid(pid: number, name: string, procRoot = '/proc'): Promise<number> {
  const candidates = await wineHostCandidates(name, procRoot);
  const [only, ...more] = candidates;
  if (only === undefined) {
    throw new TargetError(
      'unreadable',
      `cannot read the CPU time of ${name} (pid ${pid}): no Wine process on this host runs ${name} (looked for argv[0] ending in ${name} under ${procRoot})`,
    );
  }
  if (more.length > 0) {
    throw new TargetError(
      'ambiguous',
      `cannot read the CPU time of ${name} (pid ${pid}): ${candidates.length} Wine processes run ${name} (Linux pids ${candidates.map((c) => c.linuxPid).join(', ')}) and Wine's pid ${pid} appears in none of them; stop the others or rename the image`,
    );
  }
  return only.linuxPid;
}

async function procCpuSource(pid: number, name: string, procRoot: string): Promise<CpuSource> {
  const linuxPid = await wineHostPid(pid, name, procRoot);
  const path = `${procRoot}/${linuxPid}/stat`;
  return {
    describe: `${path} (the Wine process hosting pid ${pid})`,
    cores: availableParallelism(),
    async read() {
      const text = await readFile(path, 'utf8').catch(() => null);
      const atMs = performance.now();
      if (text === null || /\) [ZX] /.test(text)) return null;
      const cpuMs = parseProcStatCpuMs(text);
      return cpuMs === null ? null : { cpuMs, atMs };
    },
  };
}

function windowsCpuSource(pid: number, env: NodeJS.ProcessEnv): CpuSource {
  return {
    describe: `Get-Process -Id ${pid} (TotalProcessorTime)`,
    cores: availableParallelism(),
    async read() {
      const result = await execa(
        'powershell.exe',
        [
          '-NoProfile',
          '-NonInteractive',
          '-Command',
          `(Get-Process -Id ${pid} -ErrorAction Stop).TotalProcessorTime.TotalMilliseconds`,
        ],
        { env, reject: false, timeout: 10_000 },
      );
      const atMs = performance.now();
      const ms = Number(String(result.stdout).trim());
      if (result.exitCode !== 0 || !Number.isFinite(ms)) return null;
      return { cpuMs: ms, atMs };
    },
  };
}

/** Where the CPU time of Windows process `pid` (image `name`) is read on this host. */
export async function processCpuSource(
  pid: number,
  name: string,
  options: { env?: NodeJS.ProcessEnv; platform?: NodeJS.Platform; procRoot?: string } = {},
): Promise<CpuSource> {
  const platform = options.platform ?? process.platform;
  if (platform === 'win32') return windowsCpuSource(pid, options.env ?? process.env);
  if (platform !== 'linux') {
    throw new TargetError(
      'unreadable',
      `CPU triggers read a Wine process's time from /proc, which ${platform} does not have`,
    );
  }
  return procCpuSource(pid, name, options.procRoot ?? '/proc');
}
