// triggers.ndjson: every trigger evaluation that fires, and every dump it leads to, as one JSON
// line beside the dumps (schemas/triggerEvent.schema.json). ProcDump reports its triggers as
// console prose only; here a script can read which trigger fired, on what value, after holding
// how long, and how long the target was held for the dump. Lines are appended one at a time, so
// a run ended by Ctrl-C keeps every line written before it.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

export type TriggerName =
  | 'cpu-above'
  | 'cpu-below'
  | 'commit-above'
  | 'commit-below'
  | 'exit'
  | 'hung-window'
  | 'counter-above'
  | 'counter-below';

export type TriggerUnit = 'percent' | 'bytes' | 'exit-code' | 'seconds' | 'counter';

/** One trigger firing, before its dump. */
export interface Firing {
  trigger: TriggerName;
  /** The reading that fired it (CPU %, commit bytes, exit code, counter value). */
  value: number | null;
  threshold: number | null;
  unit: TriggerUnit;
  /** How long the condition had held when it fired, in seconds (null: an instant event). */
  heldFor: number | null;
  /** One line, ProcDump-style: what fired and why. */
  reason: string;
  /** When it fired (performance.now()), for the condition→dump latency. */
  atMs: number;
}

export interface TriggerEventLine {
  schemaVersion: 1;
  /** ISO 8601. */
  time: string;
  trigger: TriggerName;
  pid: number;
  value: number | null;
  unit: TriggerUnit;
  threshold: number | null;
  heldFor: number | null;
  /** `fired`: the condition held; `dumped`: the dump it led to; `dump-failed`: that dump failed. */
  action: 'fired' | 'dumped' | 'dump-failed';
  dumpPath: string | null;
  /** How long the target was held for the dump (null on a `fired` line). */
  suspendedMs: number | null;
  /** From firing to the debugger being started for the dump (`dumped` lines). */
  latencyMs: number | null;
  reason: string;
  error?: string;
}

export const TRIGGER_LOG_NAME = 'triggers.ndjson';

/** The dump fields of a line with no dump behind it (`fired`, `dump-failed`). */
const NO_DUMP = { dumpPath: null, suspendedMs: null, latencyMs: null } as const;

export class TriggerLog {
  readonly path: string;
  readonly lines: TriggerEventLine[] = [];

  constructor(outDir: string) {
    this.path = join(outDir, TRIGGER_LOG_NAME);
  }

  private append(line: TriggerEventLine): TriggerEventLine {
    appendFileSync(this.path, `${JSON.stringify(line)}\n`, { mode: 0o600 });
    this.lines.push(line);
    return line;
  }

  fired(pid: number, firing: Firing): TriggerEventLine {
    return this.append({
      ...base(pid, firing),
      action: 'fired',
      ...NO_DUMP,
    });
  }

  dumped(
    pid: number,
    firing: Firing,
    dump: { path: string; suspendedMs: number; latencyMs: number },
  ): TriggerEventLine {
    return this.append({
      ...base(pid, firing),
      action: 'dumped',
      dumpPath: dump.path,
      suspendedMs: dump.suspendedMs,
      latencyMs: dump.latencyMs,
    });
  }

  failed(pid: number, firing: Firing, error: string): TriggerEventLine {
    return this.append({
      ...base(pid, firing),
      action: 'dump-failed',
      ...NO_DUMP,
      error,
    });
  }
}

function base(pid: number, firing: Firing) {
  return {
    schemaVersion: 1 as const,
    time: new Date().toISOString(),
    trigger: firing.trigger,
    pid,
    value: firing.value,
    unit: firing.unit,
    threshold: firing.threshold,
    heldFor: firing.heldFor,
    reason: firing.reason,
  };
}
