// Real dumps written during the test run by Wine's own writers, each made once per mocha process
// and shared by the test files (module-level promises), with the facts known independently of the
// reader: what the program printed, what it was told to do, what winedbg said at the stop.
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTarget, targetPath, wineEnv, type RunningTarget } from '../../helpers/wine.js';
import { startWinedbg } from './winedbg-script.js';
import { makeTempDir } from '../../helpers/temp-dir.js';

let directory: string | undefined;

/** A temp directory for this run's dumps, removed when the process exits. */
export function dumpDir(): string {
  if (directory === undefined) {
    const made = makeTempDir('minidump');
    directory = made;
    process.once('exit', () => rmSync(made, { recursive: true, force: true }));
  }
  return directory;
}

/** `Z:\tmp\x.dmp` for `/tmp/x.dmp`: Wine maps drive Z: to the unix root. */
export function windowsPath(unixPath: string): string {
  return `Z:${unixPath.replace(/\//g, '\\')}`;
}

export interface FirstChanceDump {
  path: string;
  /** winedbg's stop line, e.g. `First chance exception: 0xe0434352 in 64-bit code (0x…).` */
  stopLine: string;
  /** The address winedbg printed at the stop. */
  stopAddress: bigint;
}

// Sample stop line: "First chance exception: page fault on write access to 0x0000000000000010 in 64-bit code (0x0000014000154a)."
const FIRST_CHANCE = /^First chance exception: (.*) in 64-bit code \((0x[0-9a-f]+)\)\.$/m;

/** Launches `target args…` under winedbg, continues to the first first-chance stop, dumps there. */
export async function dumpAtFirstChance(
  target: string,
  args: readonly string[],
  file: string,
): Promise<FirstChanceDump> {
  const path = join(dumpDir(), file);
  const session = await startWinedbg([targetPath(target), ...args]);
  // winedbg keeps $BreakOnFirstChance in the (shared) prefix's registry and another session may
  // have turned it off: turn it on for this session and put the old value back before quitting.
  // Sample reply to the print: "0" or "1".
  const previous = /^\s*(\d+)/.exec(await session.command('print $BreakOnFirstChance'))?.[1];
  try {
    await session.command('set $BreakOnFirstChance=1');
    const reply = await session.command('cont', 20_000);
    const match = FIRST_CHANCE.exec(reply);
    if (!match?.[2]) throw new Error(`no first-chance stop after cont:\n${reply}`);
    // A quoted unix path: winedbg's minidump command mangles drive letters and backslashes.
    await session.command(`minidump "${path}"`, 20_000);
    return { path, stopLine: match[0], stopAddress: BigInt(match[2]) };
  } finally {
    if (previous !== undefined && previous !== '1') {
      await session.command(`set $BreakOnFirstChance=${previous}`).catch(() => undefined);
    }
    await session.close({ killTarget: true });
  }
}

/** `winedbg --minidump FILE PID`: attaches, dumps (at the break-in), detaches. */
export async function dumpOnAttach(pid: number, file: string): Promise<string> {
  const path = join(dumpDir(), file);
  await runToEnd('winedbg', ['--minidump', path, String(pid)], 30_000);
  return path;
}

export interface MdwOptions {
  /** MINIDUMP_TYPE in hex; default 2 (MiniDumpWithFullMemory). */
  type?: string;
  /** Adds a synthetic exception record with this code (hex). */
  exceptionCode?: string;
}

/** mdw.exe: MiniDumpWriteDump from outside the target (Wine's dbghelp). */
export async function dumpWithMdw(
  pid: number,
  file: string,
  options: MdwOptions = {},
): Promise<{ path: string; output: string }> {
  const path = join(dumpDir(), file);
  const args = [
    ...(options.exceptionCode === undefined ? [] : ['-e', options.exceptionCode]),
    String(pid),
    windowsPath(path),
    options.type ?? '2',
  ];
  const output = await runToEnd('wine', [targetPath('mdw'), ...args], 120_000);
  // Sample: "wrote Z:\tmp\cdbh-minidump-x\threads-full.dmp 33620665"
  if (!/^wrote /m.test(output)) throw new Error(`mdw.exe did not write ${path}:\n${output}`);
  return { path, output };
}

/** Runs a command to completion with a deadline (killed and rejected on timeout). */
export function runToEnd(
  command: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], { env: wineEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (output += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} ${args.join(' ')} timed out after ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited ${code}:\n${output}`));
    });
  });
}

export interface ThreadsFacts {
  pid: number;
  /** Worker thread ids the program printed. */
  workerIds: number[];
  bufferAddress: bigint;
  bufferBytes: number;
}

export interface ThreadsDumps {
  facts: ThreadsFacts;
  full: string;
  attach: string;
  /** mdw.exe asked for MINIDUMP_TYPE 0x1824 with a synthetic 0xc0000409 on one thread. */
  flagged: { path: string; type: bigint; code: number; threadId: number };
}

const WORKERS = 4;

let threadsDumps: Promise<ThreadsDumps> | undefined;

/** threads.exe with 4 workers and a 64 KB pattern buffer: a full dump (mdw) and an attach dump. */
export function threadsDumpsOnce(): Promise<ThreadsDumps> {
  threadsDumps ??= (async () => {
    let target: RunningTarget | undefined;
    try {
      target = await startTarget('threads', [String(WORKERS), '64', '0']);
      await target.waitForLine(/^READY\r?$/);
      // mingw's stdout is in text mode, so the log has \r\n line ends.
      const log = target.log().replace(/\r\n/g, '\n');
      // Sample lines: "thread 252", "BUFFER 0x19a0000 65536"
      const workerIds = [...log.matchAll(/^thread (\d+)$/gm)].map((m) => Number(m[1]));
      const buffer = /^BUFFER (0x[0-9a-f]+) (\d+)$/m.exec(log);
      if (!buffer?.[1] || !buffer[2])
        throw new Error(`threads.exe printed no BUFFER line:\n${log}`);
      const facts: ThreadsFacts = {
        pid: target.pid,
        workerIds,
        bufferAddress: BigInt(buffer[1]),
        bufferBytes: Number(buffer[2]),
      };
      const full = (await dumpWithMdw(target.pid, 'threads-full.dmp')).path;
      const attach = await dumpOnAttach(target.pid, 'threads-attach.dmp');
      // HandleData | UnloadedModules | FullMemoryInfo | ThreadInfo, no full memory.
      const made = await dumpWithMdw(target.pid, 'threads-flagged.dmp', {
        type: '1824',
        exceptionCode: 'c0000409',
      });
      // Sample: "thread 36" (the thread mdw.exe suspended and put the exception on)
      const tid = /^thread (\d+)\r?$/m.exec(made.output)?.[1];
      if (tid === undefined) throw new Error(`mdw.exe named no thread:\n${made.output}`);
      const flagged = { path: made.path, type: 0x1824n, code: 0xc0000409, threadId: Number(tid) };
      return { facts, full, attach, flagged };
    } finally {
      await target?.kill();
    }
  })();
  return threadsDumps;
}

let clrDump: Promise<FirstChanceDump> | undefined;
/** raise.exe raising the CLR code 0xe0434352 once, dumped by winedbg at the first chance. */
export function clrDumpOnce(): Promise<FirstChanceDump> {
  clrDump ??= dumpAtFirstChance('raise', ['-n', '1', 'e0434352'], 'raise-clr-first.dmp');
  return clrDump;
}

let avDump: Promise<FirstChanceDump> | undefined;
/** av.exe writing to 0x10, dumped by winedbg at the first chance. */
export function avDumpOnce(): Promise<FirstChanceDump> {
  avDump ??= dumpAtFirstChance('av', ['0', 'write'], 'av-write-first.dmp');
  return avDump;
}

export const THREADS_WORKERS = WORKERS;
