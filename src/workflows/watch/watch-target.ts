// Which process a watch is about, and how the engine reaches it: attach to a pid, to the one
// process of a name, to the first process of a name that appears (ProcDump -w), or launch a
// program under the debugger.
import { basename } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { SessionTarget } from '../../engine/dialects/types.js';
import { UsageError } from '../../errors.js';
import {
  findProcesses,
  resolveProcess,
  type LookupOptions,
  type ProcessInfo,
} from '../process-lookup.js';

export type WatchTargetSpec =
  | { kind: 'pid'; pid: number }
  | { kind: 'name'; name: string }
  /** Wait until a process of this name appears (ProcDump -w), then attach. */
  | { kind: 'wait'; name: string; pollMs?: number; timeoutMs?: number }
  | { kind: 'launch'; program: string; args: readonly string[] };

export interface WatchedProcess {
  /** Unknown for a launched program until the debugger's banner names it. */
  pid?: number;
  name: string;
}

const DEFAULT_WAIT_POLL_MS = 500;

/** The process and the session target; `onWaiting` is called before a --wait poll starts. */
export async function resolveWatchTarget(
  spec: WatchTargetSpec,
  lookup: LookupOptions,
  signal: AbortSignal | undefined,
  onWaiting: (name: string) => void,
): Promise<{ proc: WatchedProcess; sessionTarget: SessionTarget }> {
  switch (spec.kind) {
    case 'pid':
    case 'name': {
      const found = await resolveProcess(
        spec.kind === 'pid' ? { pid: spec.pid } : { name: spec.name },
        { ...lookup, ...(signal === undefined ? {} : { signal }) },
      );
      return { proc: found, sessionTarget: { kind: 'attach', pid: found.pid } };
    }
    case 'wait': {
      onWaiting(spec.name);
      const found = await waitForProcess(
        spec.name,
        lookup,
        spec.pollMs ?? DEFAULT_WAIT_POLL_MS,
        spec.timeoutMs,
        signal,
      );
      return { proc: found, sessionTarget: { kind: 'attach', pid: found.pid } };
    }
    case 'launch':
      return {
        proc: { name: basename(spec.program.replace(/\\/g, '/')) },
        sessionTarget: { kind: 'launch', program: spec.program, args: spec.args },
      };
  }
}

/** Polls until exactly one process of `name` runs (several at once is an error, as for --name). */
async function waitForProcess(
  name: string,
  lookup: LookupOptions,
  pollMs: number,
  timeoutMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<ProcessInfo> {
  const deadline =
    timeoutMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + timeoutMs;
  for (;;) {
    if (signal?.aborted === true) throw signal.reason;
    const found = await findProcesses(name, lookup);
    if (found.length > 0) return resolveProcess({ name }, lookup);
    if (performance.now() > deadline) {
      throw new UsageError(`no process named ${name} appeared within ${timeoutMs} ms`);
    }
    await delay(pollMs, undefined, { signal }).catch(() => undefined);
  }
}
