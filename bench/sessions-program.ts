// The CLR program's `sessions` mode for the .NET heap benches (heap-trend-clr-suspension.ts,
// heap-trend-tiers.ts): started natively with its own TMPDIR (the diagnostics socket goes with it),
// its stdout in a log the bench reads: the pid, the ticks, and the stall watcher's `stall ms=N`
// lines (test/targets/dotnet/Sessions.cs: the program's own measure of how long it was stopped),
// and with --gap-watch its 1 ms watcher's `gap at=<unix ms> max_us=<n>` lines, one a second.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export const repo = resolve(import.meta.dirname, '..');
export const toolsDir = join(repo, 'test', 'targets', 'dotnet');

export interface SessionsProgram {
  child: ChildProcess;
  pid: number;
  work: string;
  env: NodeJS.ProcessEnv;
  lines(): string[];
  /** The stalls the program printed since log line `from` (ms each). */
  stallsSince(from: number): number[];
  /** The gap watcher's one-second windows that ended in [fromMs, toMs] (Unix ms): longest gap, ms. */
  gapsBetween(fromMs: number, toMs: number): number[];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const median = (xs: number[]): number =>
  [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

/** Starts `sessions -i INTERVAL --session-kb 16 --large-kb HEAP -n 0 EXTRA…`, waits for tick 3. */
export async function startSessionsProgram(
  intervalMs: number,
  heapMb: number,
  prefix: string,
  extra: readonly string[] = [],
): Promise<SessionsProgram> {
  const program = join(repo, 'build', 'dotnet', 'linux-x64', 'cdbh-dotnet');
  const work = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, TMPDIR: work };
  const log = join(work, 'program.log');
  const fd = openSync(log, 'w');
  // A big, steady heap first (--large-kb), then slow growth.
  const child = spawn(
    program,
    [
      'sessions',
      '-i',
      String(intervalMs),
      '--session-kb',
      '16',
      '--large-kb',
      String(heapMb * 1024),
      '-n',
      '0',
      ...extra,
    ],
    { env, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const lines = (): string[] => readFileSync(log, 'utf8').split('\n');
  // The program may die at once (an unknown option from a stale build): say why, not wait forever.
  let exited = false;
  child.once('exit', () => (exited = true));
  const deadline = performance.now() + 120_000;
  while (!lines().some((l) => l.startsWith('sessions tick=3'))) {
    if (exited || performance.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(
        `${program} ${exited ? 'exited' : 'gave no tick 3 in 120 s'}; its output:\n${lines().slice(0, 20).join('\n')}`,
      );
    }
    await sleep(50);
  }
  return {
    child,
    pid: Number(lines()[0]?.slice(4)),
    work,
    env,
    lines,
    stallsSince: (from) =>
      lines()
        .slice(from)
        .flatMap((l) => (/^stall ms=(\d+)/.exec(l) ? [Number(l.slice(9))] : [])),
    gapsBetween: (fromMs, toMs) =>
      lines().flatMap((l) => {
        // gap at=1796540631072 max_us=7326
        const m = /^gap at=(\d+) max_us=(\d+)/.exec(l);
        const at = Number(m?.[1]);
        return m !== null && at >= fromMs && at <= toMs ? [Number(m[2]) / 1000] : [];
      }),
  };
}
