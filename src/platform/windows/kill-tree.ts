// Ends a process and its descendants when the harness is a Windows process: `taskkill /T /F`
// (https://learn.microsoft.com/windows-server/administration/windows-commands/taskkill) does the
// walk. Its result is checked: Wine 8's taskkill rejects /T (accepted from Wine 10), and a
// taskkill that did nothing used to pass silently, leaving the tree running. Then the root alone
// is ended (taskkill /F without /T, then TerminateProcess through process.kill), and a root that
// still lives is a TargetError naming what each step said.
import { TargetError } from '../../errors.js';
import { pidAlive } from '../common/host.js';

export interface WindowsKillOptions {
  deadlineMs?: number;
  /** Whether a pid is still running (process.kill(pid, 0) by default: OpenProcess on Windows). */
  alive?: (pid: number) => boolean;
  /** Runs a command; execa by default (loaded only here). */
  run?: (file: string, args: readonly string[], timeoutMs: number) => Promise<CommandResult>;
}

export interface CommandResult {
  exitCode: number | undefined;
  output: string;
}

async function runCommand(
  file: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<CommandResult> {
  const { execa } = await import('execa');
  const result = await execa(file, [...args], { reject: false, timeout: timeoutMs, all: true });
  return { exitCode: result.exitCode, output: String(result.all ?? '').trim() };
}

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms));

async function gone(pid: number, alive: (pid: number) => boolean, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  for (;;) {
    if (!alive(pid)) return true;
    if (performance.now() > end) return false;
    await sleep(50);
  }
}

export async function killTreeWindows(
  rootPid: number,
  options: WindowsKillOptions = {},
): Promise<void> {
  const deadlineMs = options.deadlineMs ?? 5000;
  const alive = options.alive ?? pidAlive;
  const run = options.run ?? runCommand;
  const said: string[] = [];
  const tree = await run('taskkill', ['/T', '/F', '/PID', String(rootPid)], deadlineMs);
  if (tree.exitCode === 0 && (await gone(rootPid, alive, deadlineMs / 2))) return;
  said.push(`taskkill /T /F: exit ${String(tree.exitCode)} ${tree.output}`.trim());
  if (!alive(rootPid)) return;
  const one = await run('taskkill', ['/F', '/PID', String(rootPid)], deadlineMs);
  if (one.exitCode === 0 && (await gone(rootPid, alive, deadlineMs / 2))) return;
  said.push(`taskkill /F: exit ${String(one.exitCode)} ${one.output}`.trim());
  try {
    process.kill(rootPid);
  } catch (error) {
    said.push(`TerminateProcess: ${(error as Error).message}`);
  }
  if (await gone(rootPid, alive, deadlineMs / 2)) return;
  throw new TargetError(
    'kill-failed',
    `could not end pid ${rootPid} and its children: ${said.join('; ')}`,
  );
}
