// `--dump-at 100MB,200MB,…`: a dump each time the target's total commit crosses a step, like
// ProcDump -m. Each step fires once, when a sample first reaches it (several steps crossed by one
// jump give one dump each, smallest first). The dump goes through the engine: cdb `-pv` +
// `.dump /o /ma` + exit; winedbg attach + `minidump "PATH"` + detach (winedbg writes a normal dump
// only, whatever is asked). Every file is read back with processDump: it must parse and hold the target's pid.
import { mkdir, open, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DebuggerSession } from '../../engine/debugger-session.js';
import { getDialect, type DialectName } from '../../engine/dialects/index.js';
import { debuggerLaunchOptions } from '../debugger-options.js';
import { shortErrorMessage } from '../../errors.js';
import { processDump } from '../../processor/process-dump.js';
import type { ThresholdDump } from '../../report/heap-trend/types.js';
import type { DebuggerCommandFactory } from './sampler.js';

/** Steps not fired yet that `currentKb` has reached, smallest first. */
export function crossedThresholds(
  steps: readonly number[],
  fired: ReadonlySet<number>,
  currentKb: number,
): number[] {
  return steps.filter((step) => !fired.has(step) && currentKb >= step).sort((a, b) => a - b);
}

export interface ThresholdDumpOptions {
  engine: DialectName;
  pid: number;
  dir: string;
  /** Base of the file name (`leak.exe`); only [A-Za-z0-9._-] is kept. */
  name: string;
  thresholdKb: number;
  sampleIndex: number;
  totalCommittedKb: number;
  env?: NodeJS.ProcessEnv;
  debuggerPath?: string;
  symbolPath?: string;
  debuggerCommandFor?: DebuggerCommandFactory;
  timeoutMs?: number;
}

function safeName(text: string): string {
  const cleaned = text.replace(/[^A-Za-z0-9._-]+/g, '_').replace(/^[._]+/, '');
  return cleaned.length === 0 ? 'process' : cleaned.slice(0, 60);
}

export function thresholdDumpPath(dir: string, name: string, pid: number, kb: number): string {
  return join(dir, `${safeName(name)}_${pid}_commit-${Math.round(kb / 1024)}MB.dmp`);
}

/** Writes and verifies one threshold dump; never throws (the run goes on, the report says why). */
export async function writeThresholdDump(options: ThresholdDumpOptions): Promise<ThresholdDump> {
  const path = thresholdDumpPath(options.dir, options.name, options.pid, options.thresholdKb);
  const time = new Date().toISOString();
  const began = performance.now();
  const entry: ThresholdDump = {
    thresholdKb: options.thresholdKb,
    sampleIndex: options.sampleIndex,
    totalCommittedKb: options.totalCommittedKb,
    path,
    time,
    written: false,
    verified: false,
    durationMs: 0,
    suspendedMs: 0,
  };
  const abilities = getDialect(options.engine).abilities;
  let suspendedFrom = began;
  try {
    await mkdir(options.dir, { recursive: true, mode: 0o700 });
    // Dumps hold secrets: the file exists owner-only BEFORE the debugger writes into it (both
    // debuggers truncate an existing file and keep its mode).
    await (await open(path, 'w', 0o600)).close();
    const prefix = options.debuggerCommandFor?.({
      purpose: 'dump',
      thresholdKb: options.thresholdKb,
      sampleIndex: options.sampleIndex,
    });
    const session = await DebuggerSession.start({
      dialect: options.engine,
      target: { kind: 'attach', pid: options.pid, noninvasive: abilities.noninvasiveAttach },
      ...debuggerLaunchOptions({ ...options, debuggerCommandPrefix: prefix }),
      startTimeoutMs: 60_000,
    });
    // The target is stopped from the attach until the detach. The attach happens while the
    // debugger starts, before its first prompt, so the count starts at the spawn: an upper bound.
    suspendedFrom = performance.now() - session.startDurationMs;
    try {
      await session.writeDump(path, abilities.fullMemoryDumps ? 'full' : 'mini', {
        timeoutMs: options.timeoutMs ?? 300_000,
      });
    } finally {
      await session.close();
    }
    entry.suspendedMs = Math.round(performance.now() - suspendedFrom);
    const info = await processDump(path, { threads: 'none' });
    entry.sizeBytes = await stat(path).then(
      (s) => s.size,
      () => 0,
    );
    entry.written = entry.sizeBytes > 0;
    if (!info.ok) {
      entry.error = `the dump cannot be read back: ${info.error.message}`;
    } else {
      entry.kind = info.dumpKind;
      if (info.process.pid !== undefined) entry.pid = info.process.pid;
      if (info.process.pid === undefined) {
        entry.error = 'the dump records no process id (no MiscInfo stream): not verified';
      } else if (info.process.pid !== options.pid) {
        entry.error = `the dump is of pid ${info.process.pid}, not ${options.pid}`;
      } else {
        entry.verified = true;
      }
    }
  } catch (error) {
    entry.error = shortErrorMessage(error);
    if (entry.suspendedMs === 0) entry.suspendedMs = Math.round(performance.now() - suspendedFrom);
  }
  entry.durationMs = Math.round(performance.now() - began);
  return entry;
}
