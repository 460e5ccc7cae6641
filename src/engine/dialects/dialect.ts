// What differs between the debuggers the engine can drive: how to start them, what their prompt
// looks like, how to frame a command's output, how to resume, break, dump and end safely.
import type { StopEvent } from '../stop-event.js';
import { cdbDialect } from './cdb.js';
import { winedbgDialect } from './winedbg.js';

export type SessionTarget =
  | { kind: 'dump'; path: string }
  /** cdb: `-p PID -pd` (plus `-pv` when noninvasive); winedbg: `winedbg <pid>`. */
  | { kind: 'attach'; pid: number; noninvasive?: boolean }
  /** cdb `-pn NAME -pd`. */
  | { kind: 'attach-name'; name: string; noninvasive?: boolean }
  | { kind: 'launch'; program: string; args: readonly string[] }
  /** A bare debugger (e.g. winedbg for `info maps <pid>`). */
  | { kind: 'none' };

export interface ExceptionBreakSettings {
  clr?: boolean;
  av?: boolean;
  cpp?: boolean;
  codes?: readonly string[];
  allFirstChance?: boolean;
}

export type DialectName = 'cdb' | 'winedbg';

export interface Dialect {
  readonly name: DialectName;
  launchArgs(
    target: SessionTarget,
    options: { symbolPath?: string; extraArgs?: readonly string[] },
  ): string[];
  /** True when the unfinished last line ends in the debugger's prompt. */
  isPrompt(lastLine: string): boolean;
  markerCommand(marker: string): string;
  setupCommands(target: SessionTarget): string[];
  /** The command that resumes the target: passes an exception on at an exception stop. */
  goCommand(stop: StopEvent | null): string;
  isGoCommand(command: string): boolean;
  writeDumpCommand(path: string, kind: 'full' | 'mini'): string;
  exceptionBreakCommands(settings: ExceptionBreakSettings): string[];
  endCommands(target: SessionTarget): string[];
  parseStop(text: string): StopEvent;

  // ---- additions beyond the fixed contract --------------------------------------------------
  /** A prompt at the end of a line (no `^` anchor): `0:000> `, `Wine-dbg>`. */
  readonly promptPattern: RegExp;
  /** The line with any leading prompts removed (`0:000> .echo X` → `.echo X`). */
  stripPrompt(line: string): string;
  /** True when a complete output line is the marker's output (prompt already stripped). */
  isMarkerLine(line: string, marker: string): boolean;
  /** Throws UnsafeArgumentError for commands this debugger would misread (newlines, empty…). */
  validateCommand(command: string): void;
  /** How to run the debugger binary (winedbg goes through `sh -c 'stty …; exec …'`). */
  spawnCommand(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Recognises a start-up failure in the banner (e.g. attach refused). */
  startFailure(banner: string): { reason: string; message: string } | null;
  /** Live targets must be detached, never killed. */
  isLive(target: SessionTarget): boolean;
  /** The command that shows the last event (cdb `.lastevent`, winedbg `info exception`). */
  readonly lastEventCommand: string;
}

export function getDialect(name: DialectName): Dialect {
  return name === 'cdb' ? cdbDialect : winedbgDialect;
}
