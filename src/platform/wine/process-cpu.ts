// The CPU time a Windows process has used, read without touching it (no attach, no suspension),
// for ProcDump's -c/-cl triggers, on a Linux host (Windows: ../windows/process-cpu.ts).
// Under Wine every Windows process is a Linux process (the Wine loader running it), so its
//   CPU time is that Linux process's utime + stime in /proc/<pid>/stat (proc(5)). The Windows
//   pid is wineserver's own number and appears nowhere in /proc, so the host process is found by
//   its command line: Wine puts the Windows path of the image in argv[0]
//   (`C:\windows\system32\services.exe`, or the path given to `wine`, `build/targets/idle.exe`).
//   Early in its life (before Wine's loader has set argv up) the command line still starts with
//   the loader itself (`/usr/lib/wine/wine64 ./prog.exe 3000`): the image is then argv[1].
//   Only processes of the same Wine prefix count (their WINEPREFIX, ~/.wine when unset): other
//   prefixes on the machine run other wineservers with pids of their own, and a same-named
//   program there is somebody else's. Two processes of one prefix running the same image cannot
//   be told apart that way: refused, saying so.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TargetError } from '../../errors.js';
import type { CpuSource } from '../common/types.js';

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

// argv[0] of a process still in Wine's loader: /usr/lib/wine/wine64, wine, wine64-preloader
const LOADER_ARGV0_RE = /^wine(?:64)?(?:-preloader)?$/;

/**
 * The image file name of a Wine process from its command line (NUL-separated): argv[0], Windows
 * or Unix path alike, or argv[1] while argv[0] is still Wine's loader.
 */
export function wineImageName(cmdline: string): string | null {
  const argv = cmdline.split('\0');
  let image = argv[0] ?? '';
  if (LOADER_ARGV0_RE.test(image.split(/[\\/]/).pop() ?? '')) image = argv[1] ?? '';
  if (image === '') return null;
  const base = image.split(/[\\/]/).pop() ?? '';
  return /\.exe$/i.test(base) ? base : null;
}

/** The Wine prefix a process runs in, from its environment (NUL-separated `NAME=value`). */
export function winePrefixOfEnviron(environ: string, home: string = homedir()): string {
  for (const entry of environ.split('\0')) {
    if (entry.startsWith('WINEPREFIX='))
      return entry.slice('WINEPREFIX='.length).replace(/\/+$/, '');
  }
  return join(home, '.wine');
}

// /proc/<pid>/exe of a Wine process: /usr/lib/wine/wine64, …/wine64-preloader, …/wine-preloader
const WINE_LOADER_RE = /\/wine(?:64)?(?:-preloader)?$/;

export interface WineHostCandidate {
  linuxPid: number;
  cmdline: string;
}

/**
 * Linux processes that are Wine loaders running an image named `name` (any case), in Wine prefix
 * `prefix` when given.
 */
export async function wineHostCandidates(
  name: string,
  procRoot = '/proc',
  prefix?: string,
): Promise<WineHostCandidate[]> {
  const wanted = name.toLowerCase();
  const wantedPrefix = prefix?.replace(/\/+$/, '');
  const found: WineHostCandidate[] = [];
  const entries = await readdir(procRoot).catch((error: unknown) => {
    throw new TargetError(
      'unreadable',
      `CPU triggers read a Wine process's time from ${procRoot}, which this host does not have (${(error as Error).message})`,
    );
  });
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = await readFile(`${procRoot}/${entry}/cmdline`, 'latin1');
      if (wineImageName(cmdline)?.toLowerCase() !== wanted) continue;
      const exe = await readlink(`${procRoot}/${entry}/exe`).catch(() => '');
      if (!WINE_LOADER_RE.test(exe)) continue;
      const stat = await readFile(`${procRoot}/${entry}/stat`, 'utf8');
      if (/\) [ZX] /.test(stat)) continue; // a zombie is not running anything
      if (wantedPrefix !== undefined) {
        const environ = await readFile(`${procRoot}/${entry}/environ`, 'latin1');
        if (winePrefixOfEnviron(environ) !== wantedPrefix) continue;
      }
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
async function wineHostPid(
  pid: number,
  name: string,
  procRoot: string,
  prefix: string,
): Promise<number> {
  const candidates = await wineHostCandidates(name, procRoot, prefix);
  const [only, ...more] = candidates;
  if (only === undefined) {
    throw new TargetError(
      'unreadable',
      `cannot read the CPU time of ${name} (pid ${pid}): no Wine process of the prefix ${prefix} runs ${name} (looked for argv[0] ending in ${name} under ${procRoot})`,
    );
  }
  if (more.length > 0) {
    throw new TargetError(
      'ambiguous',
      `cannot read the CPU time of ${name} (pid ${pid}): ${candidates.length} Wine processes of the prefix ${prefix} run ${name} (Linux pids ${candidates.map((c) => c.linuxPid).join(', ')}) and Wine's pid ${pid} appears in none of them; stop the others or rename the image`,
    );
  }
  return only.linuxPid;
}

/** The CPU time of Windows pid `pid` (image `name`) of the prefix `env` names, from /proc. */
export async function wineCpuSource(
  pid: number,
  name: string,
  options: { env?: NodeJS.ProcessEnv; procRoot?: string } = {},
): Promise<CpuSource> {
  const procRoot = options.procRoot ?? '/proc';
  const env = options.env ?? process.env;
  const prefix = (env['WINEPREFIX'] ?? join(env['HOME'] ?? homedir(), '.wine')).replace(/\/+$/, '');
  const linuxPid = await wineHostPid(pid, name, procRoot, prefix);
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
