// The real Debugger Engine rig as the test:dbgeng tier sees it: build/dbgeng/cdb, the wrapper
// scripts/setup-dbgeng.sh writes around Microsoft's dbgeng.dll (NuGet) and the test console host.
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil, REPO_ROOT, wineEnv } from '../helpers/wine.js';

export const DBGENG_CDB = join(REPO_ROOT, 'build', 'dbgeng', 'cdb');

/** Fails loudly when the tier runs without its rig: the tier only runs after setup succeeded. */
export function requireDbgengRig(): void {
  if (!existsSync(DBGENG_CDB) || !existsSync(join(REPO_ROOT, 'build', 'dbgeng', 'dbgeng.dll'))) {
    throw new Error(
      `${DBGENG_CDB} is missing: run bash scripts/setup-dbgeng.sh first (it restores the Debugger Engine from NuGet)`,
    );
  }
}

/**
 * Where a session's transcript goes: CDB_HARNESS_DBGENG_RECORD=<dir> keeps each one as
 * <dir>/<name>.jsonl (how test/fixtures/transcripts/dbgeng/ was captured); otherwise `scratch`,
 * a temp dir the test removes.
 */
export function recordPathFor(name: string, scratch: string): string {
  const keep = process.env['CDB_HARNESS_DBGENG_RECORD'];
  const dir = keep !== undefined && keep !== '' ? keep : scratch;
  mkdirSync(dir, { recursive: true });
  return join(dir, `${name}.jsonl`);
}

/**
 * The CLR test program (test/targets/dotnet, built self-contained for win-x64 by
 * scripts/build-dotnet-targets.sh into build/dotnet, or CDB_HARNESS_DOTNET_DIR), or null.
 */
export function clrProgram(): string | null {
  const dir = process.env['CDB_HARNESS_DOTNET_DIR'] ?? join(REPO_ROOT, 'build', 'dotnet');
  const exe = join(dir, 'win-x64', 'cdbh-dotnet.exe');
  return existsSync(exe) ? exe : null;
}

/**
 * Wine's environment for a .NET program: mscoree enabled (scripts/wine-env.sh disables it for
 * prefix creation, and then Wine's loader refuses every IL assembly CoreCLR loads:
 * "Could not load file or assembly 'Z:\…\System.Runtime.dll'. Module not found.").
 */
export function clrWineEnv(): NodeJS.ProcessEnv {
  return { ...wineEnv(), WINEDLLOVERRIDES: 'mshtml=' };
}

export interface ClrTarget {
  pid: number;
  log(): string;
  kill(): Promise<void>;
}

/** Starts the CLR program under plain wine with its stdout in a temp log; waits for `PID n`. */
export async function startClrProgram(exe: string, args: readonly string[]): Promise<ClrTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-clr-'));
  const logPath = join(dir, 'stdout.log');
  const fd = openSync(logPath, 'w');
  const child = spawn('wine', [exe, ...args], {
    env: clrWineEnv(),
    stdio: ['ignore', fd, fd],
    detached: true,
  });
  closeSync(fd);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });
  const log = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const kill = async () => {
    if (!exited && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
      await pollUntil(() => (exited ? true : undefined), 5_000, 'the CLR program to exit').catch(
        () => undefined,
      );
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const line = await pollUntil(() => /^PID (\d+)/m.exec(log())?.[1], 30_000, `PID in ${logPath}`);
    return { pid: Number(line), log, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
