// How long a Linux process was really stopped while a dump of it was written, read from the
// process's own thread states rather than from how long the dump tool ran. `dotnet-dump collect`
// asks the runtime to start createdump, which ptrace-attaches every thread of the target: each one
// shows state `t` ("tracing stop", proc(5)) in /proc/PID/task/TID/stat until createdump detaches.
// The tool's spawn-to-exit time also counts its own start-up, the IPC round trip and the write
// after the threads are let go: 2–4 times the real stop on the lab program (issue 32: 704–800 ms
// of stop against 1.9–3.2 s of collect).
//
// A timer polls the thread states every `pollMs`; each poll stands for the time from the midpoint
// with the previous poll to the midpoint with the next one. `stoppedMs` is the time every thread
// was stopped (the program could not run at all); `partlyStoppedMs` the time at least one was. The
// resolution is the largest gap between polls, reported with the figure.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { currentPlatform } from '../../platform/common/host.js';

export interface ThreadStopMeasure {
  /** Time during which every thread of the target was stopped (ms). */
  stoppedMs: number;
  /** Time during which at least one thread was stopped (ms). */
  partlyStoppedMs: number;
  /** Polls taken, and the largest gap between two of them (the measure's resolution). */
  polls: number;
  resolutionMs: number;
  /** What was read, in words, for the report. */
  method: string;
}

export interface ThreadStopWatch {
  /** Stops polling; the measure, or undefined when the threads could never be read. */
  finish(): ThreadStopMeasure | undefined;
}

export interface ThreadStopOptions {
  /** Default 2 ms. */
  pollMs?: number;
  /** Test seam: a folder laid out like /proc. */
  procRoot?: string;
}

// A line of /proc/PID/task/TID/stat (proc(5)):
//   `9162 (.NET SigHandler) t 1 9155 9155 0 -1 4194368 …`
// The name may hold spaces and parentheses: the state is the first field after the last `)`.
/** The state letter of a stat line (`R`, `S`, `D`, `t`, `T`, …), or undefined. */
export function threadState(statText: string): string | undefined {
  const close = statText.lastIndexOf(')');
  if (close < 0) return undefined;
  const state = statText.slice(close + 1).trimStart()[0];
  return state === undefined || state === '' ? undefined : state;
}

/** `t` (tracing stop) and `T` (stopped by a signal) keep a thread from running. */
function isStopped(state: string): boolean {
  return state === 't' || state === 'T';
}

type Poll = { at: number; state: 'all' | 'some' | 'none' };

function readStates(root: string, pid: number): Poll['state'] | undefined {
  const dir = join(root, String(pid), 'task');
  let stopped = 0;
  let total = 0;
  try {
    for (const tid of readdirSync(dir)) {
      let text: string;
      try {
        text = readFileSync(join(dir, tid, 'stat'), 'latin1');
      } catch {
        continue; // the thread ended between the listing and the read
      }
      const state = threadState(text);
      if (state === undefined) continue;
      total++;
      if (isStopped(state)) stopped++;
    }
  } catch {
    return undefined;
  }
  if (total === 0) return undefined;
  return stopped === total ? 'all' : stopped > 0 ? 'some' : 'none';
}

/** Sums the time each poll stands for (midpoint to midpoint) per state. */
export function sumStops(polls: readonly Poll[]): { all: number; some: number; gap: number } {
  let all = 0;
  let some = 0;
  let gap = 0;
  for (let i = 0; i < polls.length; i++) {
    const poll = polls[i];
    if (poll === undefined) continue;
    const before = polls[i - 1];
    const after = polls[i + 1];
    if (before !== undefined) gap = Math.max(gap, poll.at - before.at);
    const from = before === undefined ? poll.at : (before.at + poll.at) / 2;
    const to = after === undefined ? poll.at : (poll.at + after.at) / 2;
    if (poll.state === 'all') all += to - from;
    if (poll.state !== 'none') some += to - from;
  }
  return { all, some, gap };
}

/**
 * Starts polling the thread states of `pid`; undefined where there is no /proc to read (not
 * Linux, or a Windows pid under Wine): the caller then reports its own timing as an upper bound.
 */
export function watchThreadStops(
  pid: number,
  options: ThreadStopOptions = {},
): ThreadStopWatch | undefined {
  const root = options.procRoot ?? '/proc';
  if (options.procRoot === undefined && currentPlatform() !== 'linux') return undefined;
  const pollMs = options.pollMs ?? 2;
  const polls: Poll[] = [];
  const poll = (): void => {
    const state = readStates(root, pid);
    if (state !== undefined) polls.push({ at: performance.now(), state });
  };
  poll();
  if (polls.length === 0) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const tick = (): void => {
    poll();
    timer = setTimeout(tick, pollMs);
  };
  timer = setTimeout(tick, pollMs);
  return {
    finish(): ThreadStopMeasure | undefined {
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      poll();
      if (polls.length < 2) return undefined;
      const sums = sumStops(polls);
      const round = (ms: number): number => Math.round(ms * 10) / 10;
      return {
        stoppedMs: round(sums.all),
        partlyStoppedMs: round(sums.some),
        polls: polls.length,
        resolutionMs: round(sums.gap),
        method: `thread states in /proc/${pid}/task/*/stat, polled every ${pollMs} ms`,
      };
    },
  };
}
