// The CLR test program run natively on Linux (build/dotnet/linux-x64, framework-dependent) for the
// dotnet-dump tests, with its own TMPDIR: the runtime's diagnostics socket
// (`dotnet-diagnostic-PID-…-socket`, what `dotnet-dump collect` connects to) lives there, and
// goes with the folder. The pinned dotnet-dump is the local tool of test/targets/dotnet
// (dotnet-tools.json, restored by scripts/build-dotnet-targets.sh).
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
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

export async function startNativeDotnet(args: readonly string[]): Promise<NativeDotnet> {
  const dir = makeTempDir('dotnet-native');
  const env = { ...process.env, TMPDIR: dir };
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
