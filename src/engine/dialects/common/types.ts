// What differs between the debuggers the engine can drive: how to find and start them, what their
// prompt looks like, how to frame a command's output, how to resume, break, dump and end safely,
// how to list processes, and which of the harness's jobs they can do. Everything the rest of the
// harness needs to know about one debugger is reached through this interface: no code outside
// src/engine/dialects/ looks at a dialect's name to decide anything.
import type { DebuggerEventRecord } from '../../../parsers/records.js';
import type { CpuSource } from '../../../platform/common/types.js';
import type { CounterSource } from './typeperf.js';
import type { BytePath } from '../../../common/byte-path.js';
import type { ElfCoreReading } from './elf-core.js';
import type { StopEvent } from './stop-event.js';

export type { CpuSource, CpuSample } from '../../../platform/common/types.js';

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

/** One running process as the platform lists it. */
export interface ProcessInfo {
  /** Windows process id (decimal number; winedbg prints it as hex, converted on reading). */
  pid: number;
  /** Image name as the system lists it, e.g. `w3wp.exe`. */
  name: string;
  /** winedbg only: the parent process in the tree it prints. */
  parentPid?: number;
  threads?: number;
  /** tasklist only: the "Mem Usage" column in KB. */
  memKb?: number;
}

export interface ProcessListOptions {
  env?: NodeJS.ProcessEnv;
  /** The debugger the workflow runs (a debugger that lists processes itself is asked). */
  debuggerPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** One region of a process's address space as a debugger lists it from outside. */
export interface MemoryRegion {
  /** `0x` + lower-case hex. */
  start: string;
  /** Inclusive last byte. */
  end: string;
  state: 'commit' | 'reserve' | 'free' | 'unknown';
  /** null when the debugger prints no type (free rows). */
  type: 'private' | 'mapped' | 'image' | 'unknown' | null;
  /** The allocation protection as printed (`RW`, `RCX`); empty for free rows. */
  protect: string;
  size: number;
}

/** A region listing (winedbg `info maps <pid>`). */
export interface RegionListing {
  regions: MemoryRegion[];
  /** What the process has committed for itself (commit + private rows). */
  committedPrivateBytes: number;
  /** The listing's header row was seen (no header and no rows: not a listing at all). */
  sawHeader: boolean;
  warnings: string[];
  /** The debugger could not open the process (it has exited): the line it printed. */
  error?: string;
}

/** A dump size estimate taken without attaching; `note` says why there is none. */
export interface SizeEstimate {
  bytes: number | null;
  note?: string;
}

/** How a dump-writing tool is run once (dotnet-dump collect / analyze). */
export interface DumpToolOptions {
  env?: NodeJS.ProcessEnv;
  /** `--debugger`: the tool, or a folder whose tool manifest lists it. */
  debuggerPath?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The SOS replies of one batch of commands run on a dump. */
export interface SosBatchOutputs {
  /** One text per command that finished, in order. */
  outputs: string[];
  /** The command at which the tool stopped (and the start of what it printed), if it stopped. */
  stopped?: { index: number; command: string; text: string };
  /** What the tool said as the dump loaded, before any reply (dotnet-dump's `WARNING: …`). */
  notices?: string[];
}

/**
 * How a heap-trend run samples the target's memory with this debugger:
 * - `attach-per-sample`: every sample is its own short noninvasive attach running `command`,
 *   whose output is a heap summary (the target is suspended for the attach);
 * - `bare-session`: one debugger, never attached, kept open for the run; `command` reads the
 *   target's memory regions from outside (the target is never suspended).
 */
export type HeapSampling =
  | {
      readonly style: 'attach-per-sample';
      /** Per-heap figures (the reply is a heap summary). */
      readonly source: 'heap';
      command(pid: number): string;
      /** A second command in the same attach whose reply is `!address -summary` (categories). */
      readonly categoriesCommand?: string;
    }
  | {
      readonly style: 'bare-session';
      /** The committed private memory of the process, grouped into regions. */
      readonly source: 'committed-memory';
      command(pid: number): string;
      readRegions(text: string): RegionListing;
    }
  | {
      /**
       * `dump-per-sample`: every sample writes a heap dump of the live process (the target is
       * stopped while it is written) and SOS commands are run on the dump afterwards.
       */
      readonly style: 'dump-per-sample';
      /** Per-generation GC sizes; per-type sizes come with them. */
      readonly source: 'clr-generation';
      /** File name of sample `index`'s dump. */
      dumpName(index: number): string;
      /** Writes the heap dump; returns how long the writer ran (the target's stop, bounded above). */
      collect(pid: number, path: string, options: DumpToolOptions): Promise<{ durationMs: number }>;
      /** Runs SOS commands on a dump, in one batch. */
      analyze(
        dump: string,
        commands: readonly string[],
        options: DumpToolOptions,
      ): Promise<SosBatchOutputs>;
    };

/**
 * How `analyze` triages the dumps of a tool that reads Linux core dumps (dotnet-dump) instead of
 * Windows minidumps: the file is checked first (no tool process for a file it cannot read), then
 * the triage script runs in one batch.
 */
export interface CoreDumpAnalysis {
  /** Names a folder scan takes besides the minidump ones and `--ext` (`.core`). */
  readonly extensions: readonly string[];
  /** What the file is: the facts the record takes from it, or why the tool cannot read it. */
  check(path: BytePath): Promise<ElfCoreReading>;
  /** Runs the triage commands on a dump, in one batch. */
  analyze(
    dump: string,
    commands: readonly string[],
    options: DumpToolOptions,
  ): Promise<SosBatchOutputs>;
}

/** What a debugger can and cannot do for the harness's jobs (workflows read these, not names). */
export interface DialectAbilities {
  /** Attach without taking the debug port (cdb `-pv`): used for snapshot dumps and heap samples. */
  readonly noninvasiveAttach: boolean;
  /** Writes full-memory dumps when asked (winedbg writes MiniDumpNormal whatever is asked). */
  readonly fullMemoryDumps: boolean;
  /**
   * A dump taken outside an exception holds the attach break-in (0x80000003) as its exception
   * (winedbg always writes one).
   */
  readonly dumpExceptionIsAttachBreak: boolean;
  /** Can load SOS to name CLR exceptions (cdb `.loadby sos clr`). */
  readonly sos: boolean;
  /** Has an automatic crash analysis whose key fields analyze reports (cdb `!analyze -v`). */
  readonly crashAnalysis: boolean;
  /**
   * Prints first-chance exceptions it does not stop for (cdb under `sxd`): a stop's text can
   * hold earlier exceptions that were passed on without a stop.
   */
  readonly printsPassedExceptions: boolean;
  /**
   * Tells first from second chance when reading a dump (cdb `.lastevent`). winedbg says "First
   * chance" for every dump: the minidump exception stream has no chance flag.
   */
  readonly chanceInDumps: boolean;
  /**
   * A Ctrl-C that arrives while a stop is being printed ends the debugger (winedbg exits, and an
   * attached target dies with it): once a stop report has begun, break-in waits for its prompt
   * even through a quiet spell in the middle of it.
   */
  readonly ctrlCMidStopEndsDebugger: boolean;
  /** How a dump's size is estimated before writing it, if at all. */
  readonly sizeEstimate: 'address-summary' | 'info-maps' | null;
  /**
   * Debugs Windows processes and dumps (cdb, winedbg): a candidate for `--engine auto` and the
   * default engine. False for a tool of one runtime (dotnet-dump: .NET processes and their dumps).
   */
  readonly windowsTargets: boolean;
  /**
   * Names frames from a symbol path it is given (`--symbols`; cdb -y). winedbg has no option for
   * one (it reads the PDBs beside the images), so `--symbols` there is said to change nothing.
   */
  readonly symbolPath: boolean;
}

/** How a debugger stops a process on its way out (ProcDump -t) and reads how it ends. */
export interface ExitEventRules {
  /** Armed once, on an invasive attach, before the target runs on. */
  readonly commands: readonly string[];
  /**
   * The exit code when the last-event reply says the process is exiting (cdb `Exit process
   * 0:27c, code 7`); undefined when the reply is about something else.
   */
  readExitEvent(lastEvent: string): { code: number | null } | undefined;
  /** At the exit breakpoint: the command that shows the exit code, and how to read it. */
  readonly exitCodeCommand?: string;
  readExitCode?(text: string): number | null;
}

/** What the last-event command said (fields the debugger gave; null/absent when it gave none). */
export interface LastEventReading {
  code: string | null;
  chance: 'first' | 'second' | null;
  description: string | null;
  threadId?: string;
  address?: string;
}

/** How `watch` identifies the exception at a stop with this debugger. */
export interface IdentifyCommands {
  /**
   * Whether the last-event command is worth asking at every exception stop (cdb's adds the
   * thread and the description); otherwise only when the stop text lost its event line.
   */
  readonly lastEventAtEveryStop: boolean;
  /** Reads the reply to `lastEventCommand`. */
  readLastEvent(text: string): LastEventReading;
  /** The command that prints the current exception record (cdb `.exr -1`), if there is one. */
  readonly exceptionRecordCommand?: string;
  /** The command that prints the current thread's top `frames` frames. */
  stackCommand(frames: number): string;
}

export interface Dialect {
  /** What the user types after `--engine`, and what records name as the engine. */
  readonly name: string;
  readonly abilities: DialectAbilities;
  /** The command that shows the last event (cdb `.lastevent`, winedbg `info exception`). */
  readonly lastEventCommand: string;
  /** The triage script shipped for this debugger, a file under dbgscripts/. */
  readonly triageScript: string;
  /** How watch asks this debugger what stopped the target. */
  readonly identify: IdentifyCommands;
  /** How heap-trend samples memory with this debugger (absent: heap-trend cannot use it). */
  readonly heapSampling?: HeapSampling;
  /** How analyze triages this tool's core dumps (absent: it triages minidumps with a session). */
  readonly coreDumps?: CoreDumpAnalysis;

  // ---- finding and starting the debugger ----------------------------------------------------
  /**
   * A dump size estimate taken from outside the target before attaching (abilities.sizeEstimate
   * 'info-maps'); costs the target nothing.
   */
  estimateDumpBytes?(pid: number, options: ProcessListOptions): Promise<SizeEstimate>;
  /** The debugger binary when the user named none; throws DebuggerNotFoundError. */
  locateBinary(env: NodeJS.ProcessEnv): string;
  /** Whether the debugger can be found at all (for `--engine auto`): its path, or undefined. */
  findBinary(env: NodeJS.ProcessEnv): string | undefined;
  launchArgs(
    target: SessionTarget,
    options: { symbolPath?: string; extraArgs?: readonly string[] },
  ): string[];
  /** How to run the debugger binary (winedbg goes through `sh -c 'stty …; exec …'`). */
  spawnCommand(file: string, args: readonly string[]): { file: string; args: string[] };
  /** Recognises a start-up failure in the banner (e.g. attach refused). */
  startFailure(banner: string): { reason: string; message: string } | null;
  /** The pid of a program the debugger launched, when its banner names it. */
  launchedPid(banner: string): number | undefined;
  setupCommands(target: SessionTarget): string[];

  // ---- talking to it ---------------------------------------------------------------------
  /** True when the unfinished last line ends in the debugger's prompt. */
  isPrompt(lastLine: string): boolean;
  /** A prompt at the end of a line (no `^` anchor): `0:000> `, `Wine-dbg>`. */
  readonly promptPattern: RegExp;
  /** The line with any leading prompts removed (`0:000> .echo X` → `.echo X`). */
  stripPrompt(line: string): string;
  markerCommand(marker: string): string;
  /** True when a complete output line is the marker's output (prompt already stripped). */
  isMarkerLine(line: string, marker: string): boolean;
  /** Throws UnsafeArgumentError for commands this debugger would misread (newlines, empty…). */
  validateCommand(command: string): void;

  // ---- running, stopping, dumping, ending -------------------------------------------------
  /** The command that resumes the target: passes an exception on at an exception stop. */
  goCommand(stop: StopEvent | null): string;
  isGoCommand(command: string): boolean;
  parseStop(text: string): StopEvent;
  /** The exception banners in a stop's (or any) text, read with this debugger's grammar. */
  findEvents(text: string): DebuggerEventRecord[];
  /**
   * The debugger's own line when a reply says the command does not exist in this debugger (cdb:
   * no extension serves a `!` command), else null: such a reply holds no data, not empty data.
   */
  commandUnavailable?(reply: string): string | null;
  /** True when text the debugger printed says the target process has exited. */
  isTargetExitText(text: string): boolean;
  writeDumpCommand(path: string, kind: 'full' | 'mini'): string;
  exceptionBreakCommands(settings: ExceptionBreakSettings): string[];
  endCommands(target: SessionTarget): string[];
  /** Live targets must be detached, never killed. */
  isLive(target: SessionTarget): boolean;

  // ---- the machine around the target -------------------------------------------------------
  /** Every process this debugger's platform can see (tasklist, winedbg `info process`). */
  listProcesses(options: ProcessListOptions): Promise<ProcessInfo[]>;
  /**
   * Where the CPU time of a process this debugger can see is read from outside, never attaching
   * (ProcDump -c/-cl): the process's own times on Windows, its Wine host process's on Linux.
   */
  processCpu?(pid: number, name: string, options: ProcessListOptions): Promise<CpuSource>;
  /**
   * Where a performance counter is read from outside (ProcDump -p/-pl): typeperf on Windows;
   * throws a UsageError saying why where the host has no counters (Linux, Wine).
   */
  performanceCounter?(path: string, options: ProcessListOptions): Promise<CounterSource>;
  /**
   * How to stop when the target is about to exit, with its memory still readable (ProcDump -t):
   * the commands that arm it on an invasive attach, or why this debugger cannot.
   */
  readonly exitEvent?: ExitEventRules | { readonly refused: string };
  /**
   * A tool that writes a dump of a live process with no debugger session (dotnet-dump collect):
   * `dump` runs it instead of attaching. Absent: dumps are written from a session.
   */
  readonly liveDump?: LiveDumpTool;
}

/** Writes a dump of a live process without a session, and says how to check the file. */
export interface LiveDumpTool {
  /** Writes it; returns how long the writer ran (the target's stop, bounded above). */
  collect(
    pid: number,
    path: string,
    kind: 'full' | 'mini',
    options: DumpToolOptions,
  ): Promise<{ durationMs: number }>;
  /** The file read back: what it is, or the problems that make it no dump. */
  verify(path: string): Promise<{ ok: boolean; problems: string[]; notes: string[] }>;
  /** The process's commit (ProcDump -m/-ml) read from outside, in bytes; null when gone. */
  readCommit(pid: number): Promise<{ bytes: number | null; note?: string }>;
}
