// What the debugger reported when the target stopped: the typed view of everything printed
// between a go command (or a Ctrl-C) and the next prompt.
import type { DebuggerEventRecord } from '../../../parsers/records.js';

export type StopKind = 'initial' | 'exception' | 'breakpoint' | 'break-in' | 'exit' | 'unknown';

export interface StopEvent {
  kind: StopKind;
  /** The clean output of the stop (the echoed go command removed). */
  text: string;
  /** The last exception banner seen in the stop output (from findDebuggerEvents). */
  event?: DebuggerEventRecord;
  chance?: 'first' | 'second';
  /** `0x` + 8 hex digits. */
  code?: string;
  processExited?: boolean;
  /** A break-in: the way the last break was sent (DebugBreakProcess on the target, or Ctrl-C). */
  breakInBy?: 'DebugBreakProcess' | 'Ctrl-C';
  /** A break-in by Ctrl-C where DebugBreakProcess was asked for: why that could not be done. */
  breakInFallback?: string;
  /** performance.now() when the prompt arrived. */
  atMs: number;
}

/** Builds a StopEvent from the last event found in `text`; optional fields only when known. */
export function stopFromEvents(
  kind: StopKind,
  text: string,
  events: readonly DebuggerEventRecord[],
  extra: { processExited?: boolean; atMs?: number } = {},
): StopEvent {
  const stop: StopEvent = { kind, text, atMs: extra.atMs ?? performance.now() };
  const event = events[events.length - 1];
  if (event) {
    stop.event = event;
    if (event.chance !== null) stop.chance = event.chance;
    if (event.code !== null) stop.code = event.code;
  }
  if (extra.processExited === true) stop.processExited = true;
  return stop;
}
