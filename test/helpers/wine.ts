// The Wine test rig as tests see it: the environment scripts/wine-env.sh sets, the built test
// programs, and a way to start one with its stdout in a log file (under `winedbg prog.exe` a
// debuggee's stdout is lost, so targets are started with plain `wine` and attached to).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir } from './temp-dir.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The environment for every wine/winedbg call in tests. */
export function wineEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    WINEPREFIX: process.env['CDB_HARNESS_WINEPREFIX'] ?? join(REPO_ROOT, '.wine'),
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree,mshtml=',
  };
  // wineserver keeps a working folder (wine-XXXXXX) in TMPDIR and outlives a test run, so Wine
  // gets the system temp folder, not the run's own (test/hooks/temp-dirs.ts removes that).
  const systemTmp = process.env['CDB_HARNESS_SYSTEM_TMPDIR'];
  if (systemTmp !== undefined) env['TMPDIR'] = systemTmp;
  delete env['DISPLAY'];
  return env;
}

export const TARGETS_DIR =
  process.env['CDB_HARNESS_TARGETS_DIR'] ?? join(REPO_ROOT, 'build', 'targets');

export type TargetName = 'idle' | 'leak' | 'av' | 'raise' | 'thrower' | (string & {});

export function targetPath(name: TargetName): string {
  return join(TARGETS_DIR, `${name}.exe`);
}

/** True when winedbg, the prefix and the built targets are all there (scripts/setup.sh ran). */
export function wineRigReady(): boolean {
  const env = wineEnv();
  const which = spawnSync('sh', ['-c', 'command -v winedbg'], { encoding: 'utf8' });
  return (
    which.status === 0 &&
    existsSync(join(env['WINEPREFIX'] ?? '', 'system.reg')) &&
    existsSync(targetPath('idle'))
  );
}

export function sleep(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export async function pollUntil<T>(
  check: () => T | undefined,
  timeoutMs: number,
  what: string,
  intervalMs = 20,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (performance.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

export interface RunningTarget {
  /** The Windows process id the program printed (decimal), independent of the harness. */
  pid: number;
  /** The unix child (the wine loader running the program). */
  child: ChildProcess;
  logPath: string;
  log(): string;
  /** Resolves with the first log line matching `pattern`. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** True when the log gained a line matching `pattern` within `windowMs`: alive and running. */
  isRunning(windowMs?: number, pattern?: RegExp): Promise<boolean>;
  exited(): boolean;
  exitCode(): number | null;
  /** Resolves when the unix child has exited (or after timeoutMs with false). */
  waitForExit(timeoutMs: number): Promise<boolean>;
  kill(): Promise<void>;
}

const running = new Set<RunningTarget>();

/** Starts `wine <target>.exe args…` with stdout+stderr in a temp log and waits for its PID line. */
export async function startTarget(
  name: TargetName,
  args: readonly string[] = [],
  options: { startTimeoutMs?: number; env?: NodeJS.ProcessEnv } = {},
): Promise<RunningTarget> {
  const dir = makeTempDir(name);
  const logPath = join(dir, 'stdout.log');
  const fd = openSync(logPath, 'w');
  const child = spawn('wine', [targetPath(name), ...args], {
    env: options.env ?? wineEnv(),
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  let exitCode: number | null = null;
  let hasExited = false;
  child.on('exit', (code) => {
    hasExited = true;
    exitCode = code;
  });
  const log = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const waitForLine = (pattern: RegExp, timeoutMs = 15_000) =>
    pollUntil(
      () =>
        log()
          .split(/\r?\n/)
          .find((l) => pattern.test(l)),
      timeoutMs,
      `${pattern} in ${logPath}`,
    );
  const target: RunningTarget = {
    pid: 0,
    child,
    logPath,
    log,
    waitForLine,
    async isRunning(windowMs = 1500, pattern = /./) {
      if (hasExited) return false;
      const before = log()
        .split(/\r?\n/)
        .filter((l) => pattern.test(l)).length;
      const deadline = performance.now() + windowMs;
      while (performance.now() < deadline) {
        await sleep(50);
        if (
          log()
            .split(/\r?\n/)
            .filter((l) => pattern.test(l)).length > before
        )
          return true;
      }
      return false;
    },
    exited: () => hasExited,
    exitCode: () => exitCode,
    async waitForExit(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (!hasExited && performance.now() < deadline) await sleep(20);
      return hasExited;
    },
    async kill() {
      running.delete(target);
      if (hasExited || child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await target.waitForExit(5000);
    },
  };
  running.add(target);
  const pidLine = await waitForLine(/^PID \d+/, options.startTimeoutMs ?? 20_000);
  target.pid = Number(/^PID (\d+)/.exec(pidLine)?.[1]);
  return target;
}

/** Kills every target startTarget() started and did not kill yet (for `after` hooks). */
export async function killAllTargets(): Promise<void> {
  await Promise.all([...running].map((t) => t.kill()));
}

/** Size of a file, or -1 when it does not exist. */
export function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : -1;
}
