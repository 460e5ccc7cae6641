// Which .NET process a Linux watch is about (no debugger involved): a pid, the one .NET process
// of a name, the first one of a name to appear (ProcDump -w), or a program launched here and held
// at its runtime's start (DOTNET_DefaultDiagnosticPortSuspend=1, documented with the diagnostic
// port: https://learn.microsoft.com/dotnet/core/diagnostics/diagnostic-port) until the exception
// session is on, so its first throws are seen too.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import {
  dotnetProcessMatches,
  listDotnetDiagProcesses,
  publishedPids,
} from '../../engine/dialects/dotnet-diag/index.js';
import { AbortedError, TargetError, TimeoutError, UsageError } from '../../errors.js';
import type { WatchTargetSpec } from './watch-target.js';

export interface DotnetWatchTarget {
  pid: number;
  name: string;
  /** The program we launched (held at startup until the session resumes it), if any. */
  child?: ChildProcess;
}

const POLL_MS = 200;
const LAUNCH_TIMEOUT_MS = 30_000;

/**
 * What a Linux pid is, for choosing how to watch it: a .NET process (its channel published, or
 * CoreCLR mapped), a Windows program under Wine, or something else.
 */
export function linuxTargetKind(
  pid: number,
  env: NodeJS.ProcessEnv = process.env,
): 'dotnet' | 'wine' | 'other' {
  if (publishedPids(env).includes(pid)) return 'dotnet';
  let maps = '';
  try {
    maps = readFileSync(`/proc/${pid}/maps`, 'utf8');
  } catch {
    // not ours to read, or gone: decided below by name
  }
  if (maps.includes('/libcoreclr.so')) return 'dotnet';
  let exe = '';
  try {
    exe = basename(readlinkSync(`/proc/${pid}/exe`));
  } catch {
    // as above
  }
  if (/^wine/.test(exe) || /ntdll\.dll/i.test(maps)) return 'wine';
  return 'other';
}

/**
 * Whether a watch without --engine on Linux goes to the .NET diagnostics channel: a pid that is a
 * .NET process (a Wine pid is no Linux pid, so any other pid stays with the debugger), a name a
 * .NET process has now, a program or awaited name that is not a Windows `.exe`.
 */
export function linuxWatchUsesDotnet(
  spec: WatchTargetSpec,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  switch (spec.kind) {
    case 'pid':
      return linuxTargetKind(spec.pid, env) === 'dotnet';
    case 'name':
      return findByName(spec.name, env).length > 0;
    case 'wait':
      return !/\.exe$/i.test(spec.name);
    case 'launch':
      return !/\.exe$/i.test(spec.program);
  }
}

function findByName(name: string, env: NodeJS.ProcessEnv): DotnetWatchTarget[] {
  return listDotnetDiagProcesses(env)
    .filter((p) => dotnetProcessMatches(p, name))
    .map((p) => ({ pid: p.pid, name: p.name }));
}

function one(name: string, found: DotnetWatchTarget[]): DotnetWatchTarget {
  const [first, second] = found;
  if (first === undefined) {
    throw new TargetError(
      'not-found',
      `no .NET process named ${name} (looked for diagnostics channels)`,
    );
  }
  if (second !== undefined) {
    throw new UsageError(
      `${found.length} .NET processes are named ${name} (pids ${found.map((p) => p.pid).join(', ')}): give --pid`,
    );
  }
  return first;
}

export async function resolveDotnetTarget(
  spec: WatchTargetSpec,
  options: {
    env: NodeJS.ProcessEnv;
    signal?: AbortSignal | undefined;
    onWaiting(name: string): void;
  },
): Promise<DotnetWatchTarget> {
  const { env, signal } = options;
  switch (spec.kind) {
    case 'pid': {
      if (!existsSync(`/proc/${spec.pid}`)) {
        throw new TargetError('not-found', `no process with pid ${spec.pid}`);
      }
      let name = String(spec.pid);
      try {
        name = basename(readlinkSync(`/proc/${spec.pid}/exe`));
      } catch {
        // another user's process: the helper says what it can
      }
      return { pid: spec.pid, name };
    }
    case 'name':
      return one(spec.name, findByName(spec.name, env));
    case 'wait': {
      options.onWaiting(spec.name);
      const until =
        spec.timeoutMs === undefined
          ? Number.POSITIVE_INFINITY
          : performance.now() + spec.timeoutMs;
      for (;;) {
        if (signal?.aborted === true)
          throw new AbortedError(`aborted while waiting for ${spec.name}`);
        const found = findByName(spec.name, env);
        if (found.length > 0) return one(spec.name, found);
        if (performance.now() > until) {
          throw new UsageError(
            `no .NET process named ${spec.name} appeared within ${spec.timeoutMs} ms`,
          );
        }
        await delay(spec.pollMs ?? POLL_MS * 2, undefined, { signal }).catch(() => undefined);
      }
    }
    case 'launch':
      return launchHeld(spec.program, spec.args, env, signal);
  }
}

/** Starts the program with its runtime held at startup; returns once its channel is published. */
async function launchHeld(
  program: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  signal: AbortSignal | undefined,
): Promise<DotnetWatchTarget> {
  const child = spawn(program, [...args], {
    env: { ...env, DOTNET_DefaultDiagnosticPortSuspend: '1' },
    // Its output goes to our stderr: our stdout is for --json.
    stdio: ['ignore', 2, 2],
  });
  const failed = new Promise<Error>((resolve) => {
    child.once('error', (error) =>
      resolve(new TargetError('launch-failed', `cannot start ${program}: ${error.message}`)),
    );
    child.once('exit', (code, sig) =>
      resolve(
        new TargetError(
          'exited',
          `${program} exited (${code ?? sig ?? '?'}) before its .NET runtime published a diagnostics channel: is it a .NET program?`,
        ),
      ),
    );
  });
  const state: { failure: Error | null } = { failure: null };
  void failed.then((e) => {
    state.failure = e;
  });
  const until = performance.now() + LAUNCH_TIMEOUT_MS;
  for (;;) {
    await delay(POLL_MS / 4);
    if (state.failure !== null) throw state.failure;
    if (child.pid !== undefined && publishedPids(env).includes(child.pid)) {
      return { pid: child.pid, name: basename(program), child };
    }
    if (signal?.aborted === true || performance.now() > until) {
      child.kill('SIGKILL');
      if (signal?.aborted === true) throw new AbortedError(`aborted while starting ${program}`);
      throw new TimeoutError(
        `${program} published no .NET diagnostics channel within ${LAUNCH_TIMEOUT_MS} ms: is it a .NET program?`,
        LAUNCH_TIMEOUT_MS,
      );
    }
  }
}

/** The process is gone (or a zombie waiting for its parent): it runs no more. */
export function processGone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `1234 (cdbh-dotnet) Z 1 …`: the state follows the parenthesised name.
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return true;
  }
}
