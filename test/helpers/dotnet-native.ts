// The CLR test program run natively on Linux (build/dotnet/linux-x64, framework-dependent) for the
// dotnet-dump tests, with its own TMPDIR: the runtime's diagnostics socket
// (`dotnet-diagnostic-PID-…-socket`, what `dotnet-dump collect` connects to) lives there, and
// goes with the folder. The pinned dotnet-dump is the local tool of test/targets/dotnet
// (dotnet-tools.json, restored by scripts/build-dotnet-targets.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findDiagHelper } from '../../src/engine/dialects/dotnet-diag/index.js';
import { DOTNET_DIR } from './dotnet.js';
import { makeTempDir } from './temp-dir.js';
import { REPO_ROOT, sleep } from './wine.js';

/** The folder whose tool manifest pins dotnet-dump and dotnet-gcdump (`--debugger` for tests). */
export const DOTNET_TOOLS_DIR = join(REPO_ROOT, 'test', 'targets', 'dotnet');

export function nativeDotnetProgram(): string {
  return join(DOTNET_DIR, 'linux-x64', 'cdbh-dotnet');
}

/** Why the native .NET tests cannot run, or null. */
export function nativeDotnetSkipReason(): string | null {
  if (process.platform !== 'linux') return 'dotnet-dump tests run on Linux';
  if (!existsSync(nativeDotnetProgram())) {
    return `${nativeDotnetProgram()} is missing (scripts/build-dotnet-targets.sh: no .NET SDK?)`;
  }
  const toolStore = join(process.env['HOME'] ?? '', '.nuget', 'packages', 'dotnet-dump');
  if (!existsSync(toolStore)) return 'dotnet-dump is not restored (dotnet tool restore)';
  return null;
}

export interface NativeDotnet {
  pid: number;
  /** The environment the program runs in: give it to dotnet-dump so it finds the socket. */
  env: NodeJS.ProcessEnv;
  lines(): string[];
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited(): boolean;
  kill(): Promise<void>;
}

const running = new Set<ChildProcess>();

export async function startNativeDotnet(
  args: readonly string[],
  extraEnv: NodeJS.ProcessEnv = {},
): Promise<NativeDotnet> {
  const dir = makeTempDir('dotnet-native');
  const env = { ...process.env, ...extraEnv, TMPDIR: dir };
  const logPath = join(dir, 'program.log');
  const fd = openSync(logPath, 'w');
  const child = spawn(nativeDotnetProgram(), [...args], { env, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  running.add(child);
  let done = false;
  child.once('exit', () => {
    done = true;
    running.delete(child);
  });
  const lines = (): string[] =>
    readFileSync(logPath, 'utf8')
      .split('\n')
      .slice(0, -1)
      .map((l) => l.replace(/\r$/, ''));
  const waitForLine = async (pattern: RegExp, timeoutMs = 20_000): Promise<string> => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const hit = lines().find((l) => pattern.test(l));
      if (hit !== undefined) return hit;
      if (Date.now() > until || done) {
        throw new Error(`no line ${pattern} from cdbh-dotnet: ${lines().slice(-5).join(' | ')}`);
      }
      await sleep(50);
    }
  };
  const pidLine = await waitForLine(/^PID \d+$/);
  return {
    pid: Number(pidLine.slice(4)),
    env,
    lines,
    waitForLine,
    exited: () => done,
    kill: () => killOne(child),
  };
}

async function killOne(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  await gone;
}

/** Ends every program these helpers started (afterEach). */
export async function killNativeDotnets(): Promise<void> {
  await Promise.all([...running].map((child) => killOne(child)));
}

/**
 * The set-up of a suite that runs the native program (call it first in the describe, with the
 * suite): a timeout for dotnet-dump's collects, a skip that says why where the tests cannot run,
 * and every program ended after each test.
 */
export function nativeDotnetSuite(suite: Mocha.Suite): void {
  suite.timeout(180_000);
  before(function () {
    const reason = nativeDotnetSkipReason();
    if (reason !== null) {
      console.log(`      skipped: ${reason}`);
      this.skip();
    }
  });
  afterEach(() => killNativeDotnets());
}

/**
 * nativeDotnetSuite, and a skip that says why when cdbh-diag (the diagnostics channel helper,
 * scripts/build-dotnet-diag.sh) is not built.
 */
export function diagHelperSuite(suite: Mocha.Suite): void {
  nativeDotnetSuite(suite);
  before(function () {
    if (findDiagHelper() === undefined) {
      console.log('      skipped: cdbh-diag is not built (scripts/build-dotnet-diag.sh)');
      this.skip();
    }
  });
}

/** The program's `sessions` mode (test/targets/dotnet/Program.cs says what each option does). */
export interface SessionsMode {
  /** -i: ms between ticks. */
  intervalMs: number;
  /** --session-kb: what each session holds (16 in these tests). */
  sessionKb: number;
  /** --large-kb: one big array allocated once and held. */
  largeKb?: number;
  /** --keep: the cache evicts beyond this many sessions. */
  keep?: number;
  /** --cache: the sessions held by SessionCache.Entries; --ballast N: its constant List<string>. */
  cache?: { ballast: number };
  /** -n: ticks before the program exits (0: runs until killed). */
  ticks: number;
  /** Returns once the program has printed `sessions tick=<afterTick>`. */
  afterTick: number;
}

/** Starts the program's sessions mode and waits for the tick asked for. */
export async function startSessions(mode: SessionsMode): Promise<NativeDotnet> {
  const args = ['sessions', '-i', String(mode.intervalMs), '--session-kb', String(mode.sessionKb)];
  if (mode.largeKb !== undefined) args.push('--large-kb', String(mode.largeKb));
  if (mode.keep !== undefined) args.push('--keep', String(mode.keep));
  if (mode.cache !== undefined) args.push('--cache', '--ballast', String(mode.cache.ballast));
  args.push('-n', String(mode.ticks));
  const target = await startNativeDotnet(args);
  await target.waitForLine(new RegExp(`^sessions tick=${mode.afterTick} `));
  return target;
}
