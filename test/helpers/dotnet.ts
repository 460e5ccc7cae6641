// The CLR test program (test/targets/dotnet, built by scripts/build-dotnet-targets.sh) as tests
// start it under Wine: stdout in a log file, stdin a pipe, so a test can hold the program at
// `--stdin` until the debugger is attached and then release it (no sleeps to tune).
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pollUntil, REPO_ROOT, sleep, wineEnv, wineRigReady } from './wine.js';

export const DOTNET_DIR =
  process.env['CDB_HARNESS_DOTNET_DIR'] ?? join(REPO_ROOT, 'build', 'dotnet');

/** `net10`: the SDK's current runtime; `net8`: the last runtime that raises classic e0434352s. */
export type DotnetFlavor = 'net10' | 'net8';

export function dotnetProgram(flavor: DotnetFlavor): string {
  return join(DOTNET_DIR, flavor === 'net10' ? 'win-x64' : 'win-x64-net8', 'cdbh-dotnet.exe');
}

/** Why the CLR tests cannot run here, or null when they can. */
export function dotnetSkipReason(): string | null {
  if (!wineRigReady()) return 'the Wine rig is not set up (run scripts/setup.sh)';
  for (const flavor of ['net10', 'net8'] as const) {
    if (!existsSync(dotnetProgram(flavor))) {
      return `${dotnetProgram(flavor)} is missing: scripts/build-dotnet-targets.sh could not build it (no .NET SDK?)`;
    }
  }
  return null;
}

/**
 * wineEnv() without disabling mscoree: Wine's loader needs its builtin mscoree.dll to map the
 * IL-only assemblies CoreCLR loads. With `mscoree=` (disabled) the program dies at start:
 * `err:module:fixup_imports_ilonly mscoree.dll not found, IL-only binary L"System.Runtime.dll"
 * cannot be loaded` / `System.IO.FileNotFoundException: Could not load file or assembly
 * '…System.Runtime.dll'. Module not found.` (measured with Wine 8.0).
 */
export function clrWineEnv(): NodeJS.ProcessEnv {
  return { ...wineEnv(), WINEDLLOVERRIDES: 'mshtml=' };
}

export interface DotnetTarget {
  /** The Windows pid the program printed. */
  pid: number;
  log(): string;
  /** The program's own lines (CR stripped), for comparing with what the debugger saw. */
  lines(): string[];
  /** Sends the line `--stdin` waits for. */
  release(): void;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  waitForExit(timeoutMs: number): Promise<boolean>;
  exitCode(): number | null;
  kill(): Promise<void>;
}

const started = new Set<DotnetTarget>();

/** Starts `wine cdbh-dotnet.exe ARGS` and waits for its PID line. */
export async function startDotnetTarget(
  flavor: DotnetFlavor,
  args: readonly string[],
): Promise<DotnetTarget> {
  const dir = mkdtempSync(join(tmpdir(), 'cdbh-dotnet-'));
  const logPath = join(dir, 'stdout.log');
  const fd = openSync(logPath, 'w');
  const child = spawn('wine', [dotnetProgram(flavor), ...args], {
    env: clrWineEnv(),
    stdio: ['pipe', fd, fd],
    detached: true,
  });
  closeSync(fd);
  let exited = false;
  let code: number | null = null;
  child.on('exit', (c) => {
    exited = true;
    code = c;
  });
  child.stdin?.on('error', () => {
    // the program may be gone before we write to it
  });
  const log = () => (existsSync(logPath) ? readFileSync(logPath, 'utf8') : '');
  const lines = () => log().replace(/\r/g, '').split('\n');
  const waitForLine = (pattern: RegExp, timeoutMs = 30_000) =>
    pollUntil(() => lines().find((l) => pattern.test(l)), timeoutMs, `${pattern} in ${logPath}`);
  const target: DotnetTarget = {
    pid: 0,
    log,
    lines,
    release() {
      child.stdin?.end('go\n');
    },
    waitForLine,
    async waitForExit(timeoutMs) {
      const deadline = performance.now() + timeoutMs;
      while (!exited && performance.now() < deadline) await sleep(50);
      return exited;
    },
    exitCode: () => code,
    async kill() {
      started.delete(target);
      if (!exited && child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
        await target.waitForExit(5000);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
  started.add(target);
  // CoreCLR's start under Wine takes 1-3 s on this rig; more on a loaded machine.
  const pidLine = await waitForLine(/^PID \d+/, 60_000);
  target.pid = Number(/^PID (\d+)/.exec(pidLine)?.[1]);
  return target;
}

/** Kills every program startDotnetTarget started and removes its log (for `after` hooks). */
export async function killDotnetTargets(): Promise<void> {
  await Promise.all([...started].map((t) => t.kill()));
}
