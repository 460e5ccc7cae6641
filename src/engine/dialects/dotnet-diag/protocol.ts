// The lines cdbh-diag writes (native/dotnet-diag/Program.cs says the same in C#): one JSON object
// per line, told apart by `kind`. parseDiagLine never throws: a line that is not one of these
// (or is cut, or is not JSON) comes back as `{ kind: 'garbled' }` with the text, bounded.

/** The helper's clock: Unix time in milliseconds (fractional), the target's event time stamps. */
export type UnixMs = number;

export interface DiagReady {
  kind: 'ready';
  mode: 'exceptions' | 'counters';
  pid: number;
  t: UnixMs;
}

/** One managed throw (Microsoft-Windows-DotNETRuntime ExceptionThrown_V1), first chance. */
export interface DiagException {
  kind: 'exception';
  /** 1-based order in the session: a gap means events were lost. */
  seq: number;
  /** When the runtime raised the event (the throw), not when it arrived. */
  t: UnixMs;
  type: string;
  message: string;
  /** `0x80131509` */
  hresult: string;
  /** ExceptionThrown_V1 ExceptionFlags: 0x01 has inner, 0x02 nested, 0x04 rethrown, 0x08 corrupted state, 0x10 CLS compliant. */
  flags: number;
  /** The OS thread id (decimal). */
  threadId: number;
  eip: string;
  /** Top first: `module!Namespace.Type.Method(args)`, or `module+0x…`/`0x…` where no method is known. */
  frames: string[];
}

/** One System.Runtime (or other EventCounters provider) sample. */
export interface DiagCounter {
  kind: 'counter';
  t: UnixMs;
  provider: string;
  /** `gc-heap-size`, `gen-0-size`, `alloc-rate`, `working-set`, `gc-committed`… */
  name: string;
  displayName: string;
  value: number | null;
  /** `MB`, `B`, `%`, `ms` or empty. */
  unit: string;
  /** `Mean` (a gauge) or `Sum` (a count or amount over the interval). */
  counterType: string;
  intervalSec?: number;
}

export interface DiagDump {
  kind: 'dump';
  id?: number;
  ok: boolean;
  path: string;
  /** When the helper sent the dump command (the dump's start). */
  startT: UnixMs;
  ms: number;
  error?: string;
}

export interface DiagEnd {
  kind: 'end';
  reason: 'target-exited' | 'stopped' | 'stream-ended';
  events: number;
  lost: number;
  /**
   * Exception sessions: how many events of each Microsoft-Windows-DotNETRuntime event ID arrived
   * (ID as a decimal string), i.e. which events the session made the target raise.
   */
  runtimeEvents?: Record<string, number>;
}

export type DiagErrorCode =
  'NOT_DOTNET' | 'NO_CHANNEL' | 'NO_PROCESS' | 'UNSUPPORTED' | 'FAILED' | 'USAGE';

export interface DiagErrorLine {
  kind: 'error';
  code: DiagErrorCode;
  message: string;
}

/** Something the harness should tell its user (a rundown that failed, say). */
export interface DiagNote {
  kind: 'note';
  message: string;
}

export interface DiagProbe {
  kind: 'probe';
  pid: number;
  runtime: string;
}

export interface DiagGarbled {
  kind: 'garbled';
  text: string;
}

export type DiagLine =
  | DiagReady
  | DiagException
  | DiagCounter
  | DiagDump
  | DiagEnd
  | DiagErrorLine
  | DiagProbe
  | DiagNote
  | DiagGarbled;

const KINDS = new Set(['ready', 'exception', 'counter', 'dump', 'end', 'error', 'probe', 'note']);
const GARBLED_KEEP = 500;

export function parseDiagLine(text: string): DiagLine {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { kind: 'garbled', text: text.slice(0, GARBLED_KEEP) };
  }
  if (
    parsed === null ||
    typeof parsed !== 'object' ||
    !KINDS.has(String((parsed as { kind?: unknown }).kind))
  ) {
    return { kind: 'garbled', text: text.slice(0, GARBLED_KEEP) };
  }
  const line = parsed as DiagLine;
  if (line.kind === 'exception' && !Array.isArray(line.frames)) line.frames = [];
  return line;
}
