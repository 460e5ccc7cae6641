// winedbg (Wine's debugger) as the real end-to-end stand-in for cdb. Every rule here was measured
// against Wine 8 on Debian 12 (the rig scripts/setup.sh builds) and is pinned by
// test/e2e/winedbg-session.test.ts: the stty preset, the prompt, echo, `pass` vs `cont`, Ctrl-C,
// `detach` + `quit`, and the `minidump` path traps. winedbg's commands are listed in its manual
// page, winedbg(1), and its messages come from its source,
// https://gitlab.winehq.org/wine/wine/-/tree/master/programs/winedbg.
import { promptRules } from '../common/prompt-rules.js';
import { UnsafeArgumentError, UsageError } from '../../../errors.js';
import { findDebuggerEvents, parseDebuggerEvent } from '../../../parsers/debugger-event.js';
import { isLiveTarget, refuseBadPid } from '../common/live-target.js';
import { stopFromEvents, type StopEvent } from '../common/stop-event.js';
import {
  refuseBadCommand,
  refuseChars,
  refuseControlChars,
  refuseNonAscii,
} from '../common/unsafe-text.js';
import type { Dialect } from '../common/types.js';
import { findOnPath } from '../../../platform/index.js';
import { parseWinedbgInfoMaps } from './info-maps.js';
import { winedbgFile } from './binary.js';

// The prompt, no trailing space, no newline: `Wine-dbg>`
const PROMPT_RE = /Wine-dbg> ?$/;
// Echoed input after a prompt on one line: `Wine-dbg>echo __M7__`
const LEADING_PROMPT_RE = /^(?:Wine-dbg> ?)+/;
// Go commands: `cont`, `c`, `pass` (`pass` is cdb's `gn`: the exception goes to the program).
const GO_RE = /^\s*(?:cont|c|pass)\s*$/i;
// `Process of pid=0458 has terminated`
const EXIT_RE = /^Process of pid=[0-9a-f]+ has terminated/m;
// `Ctrl-C: stopping debuggee`
const CTRL_C_RE = /^Ctrl-C: stopping debuggee/m;
// `Stopped on breakpoint 1 at 0x0000000140001550 main+0x10 [...]` (winedbg break.c message)
const BREAKPOINT_RE = /^Stopped on breakpoint \d+ at /m;
// `WineDbg starting on pid 0508` / `WineDbg starting on minidump on pid 07e4`
const STARTING_RE = /^WineDbg starting on /m;
// `Can't attach process 1869f: error 87` (`winedbg 99999`)
const CANT_ATTACH_RE = /^Can't attach process ([0-9a-f]+): error (\d+)/m;
// The launched process's pid, in hex: `WineDbg starting on pid 01a0`
const STARTING_PID_RE = /WineDbg starting on pid ([0-9a-f]+)/i;

export const winedbgDialect: Dialect = {
  name: 'winedbg',
  ...promptRules(PROMPT_RE, LEADING_PROMPT_RE),
  lastEventCommand: 'info exception',
  triageScript: 'triage.winedbg.txt',
  abilities: {
    noninvasiveAttach: false,
    fullMemoryDumps: false,
    dumpExceptionIsAttachBreak: true,
    sos: false,
    crashAnalysis: false,
    printsPassedExceptions: false,
    chanceInDumps: false,
    ctrlCMidStopEndsDebugger: true,
    sizeEstimate: 'info-maps',
    windowsTargets: true,
    symbolPath: false,
  },
  identify: {
    // The stop line already holds what `info exception` repeats.
    lastEventAtEveryStop: false,
    readLastEvent(text) {
      const event = parseDebuggerEvent(text);
      return {
        code: event.code,
        chance: event.chance,
        description: event.description,
        ...(event.address === undefined ? {} : { address: event.address }),
      };
    },
    // `bt` prints the whole stack; the caller keeps the top frames.
    stackCommand: () => 'bt',
  },
  heapSampling: {
    style: 'bare-session',
    source: 'committed-memory',
    // OpenProcess + VirtualQueryEx from outside (22–47 ms here): the target never stops.
    command: (pid) => `info maps ${pid}`,
    readRegions: parseWinedbgInfoMaps,
  },

  // Loaded on first use: only `dump` asks for an estimate.
  estimateDumpBytes: async (pid, options) =>
    (await import('./dump-estimate.js')).estimateFromInfoMaps(pid, options),

  locateBinary(env) {
    return winedbgFile(env);
  },
  findBinary(env) {
    return findOnPath('winedbg', env);
  },
  // Loaded on first use: only the commands that look for processes need it.
  listProcesses: async (options) =>
    (await import('./process-list.js')).listWinedbgProcesses(options),
  processCpu: async (pid, name, options) =>
    (await import('../../../platform/index.js')).processCpuSource(pid, name, {
      ...(options.env === undefined ? {} : { env: options.env }),
    }),
  // winedbg has no exit-event break: on EXIT_PROCESS_DEBUG_EVENT it prints `Process of pid=…
  // has terminated`, drops the process and continues it (programs/winedbg/tgt_active.c), so
  // there is no prompt at which the process is still readable.
  exitEvent: {
    refused:
      'winedbg cannot stop a process that is about to exit: at the exit event it prints "Process of pid=… has terminated" and lets the process go without a prompt, so no dump can be written then. Use --engine cdb (sxe epr); nothing was attached',
  },

  launchedPid(banner) {
    const match = STARTING_PID_RE.exec(banner);
    return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16);
  },

  findEvents(text) {
    return findDebuggerEvents(text, 'winedbg');
  },

  isTargetExitText(text) {
    return EXIT_RE.test(text);
  },

  launchArgs(target, options) {
    // winedbg has no symbol-path option; symbols come from the DWARF in the binaries.
    const args = [...(options.extraArgs ?? [])];
    switch (target.kind) {
      case 'dump':
        refuseControlChars('The dump path', target.path);
        args.push(target.path);
        break;
      case 'attach':
        refuseBadPid(target.pid);
        // `winedbg 1288` (decimal) attaches; winedbg has no noninvasive mode.
        args.push(String(target.pid));
        break;
      case 'attach-name':
        throw new UsageError(
          'winedbg cannot attach by process name; find the pid and use an attach target.',
        );
      case 'launch':
        refuseControlChars('The program path', target.program);
        args.push(target.program);
        for (const arg of target.args) args.push(arg);
        break;
      case 'none':
        break;
    }
    return args;
  },

  markerCommand(marker) {
    return `echo ${marker}`;
  },

  isMarkerLine(line, marker) {
    // With no process loaded, `echo X` prints `No process loaded, cannot execute 'echo X'`.
    const text = line.trimEnd();
    return text === marker || text.endsWith(`cannot execute 'echo ${marker}'`);
  },

  setupCommands(target) {
    // winedbg keeps $BreakOnFirstChance in the prefix's registry, so a value an earlier session
    // set (0: second chance only) would silently carry over. Every live session starts from
    // winedbg's default; exceptionBreakCommands() changes it on request. It needs a process
    // (`No process loaded, cannot execute 'set …'` otherwise).
    return target.kind === 'attach' || target.kind === 'launch'
      ? ['set $BreakOnFirstChance=1']
      : [];
  },

  goCommand(stop: StopEvent | null) {
    // `cont` at an exception tells the target it was handled (an AV re-faults forever);
    // `pass` hands it to the program's own handlers like cdb's `gn`. The attach stop can be an
    // exception too: winedbg stops at the first debug event after attaching, and a program that
    // raises while the attach is under way (a slow attach on a loaded machine) beats the attach's
    // own break: `WineDbg starting on pid 0020` then `First chance exception: 0xe0434f4d …`.
    const exception =
      stop?.kind === 'exception' || (stop?.kind === 'initial' && stop.event !== undefined);
    return exception ? 'pass' : 'cont';
  },

  isGoCommand(command) {
    return GO_RE.test(command);
  },

  writeDumpCommand(path, _kind) {
    // winedbg writes MiniDumpNormal only, whatever is asked. Quoted unix paths work;
    // `Z:\…` gives `Syntax Error (:)` and still writes a file named `Z`; single backslashes in
    // quotes are read as escapes and nothing is written; an unquoted space cuts the name.
    refuseControlChars('The dump path', path);
    refuseNonAscii('The dump path', path);
    refuseChars('The dump path', path, ['"', '\\', ';', "'", ' ', ':']);
    if (path.length === 0) throw new UnsafeArgumentError('The dump path must not be empty.');
    return `minidump "${path}"`;
  },

  exceptionBreakCommands(settings) {
    // Global in winedbg: the harness filters stops itself.
    const any =
      settings.allFirstChance === true ||
      settings.clr === true ||
      settings.av === true ||
      settings.cpp === true ||
      (settings.codes?.length ?? 0) > 0;
    return [`set $BreakOnFirstChance=${any ? 1 : 0}`];
  },

  endCommands(target) {
    // `detach` lets the target run on; `quit` then ends winedbg.
    return isLiveTarget(target) ? ['detach', 'quit'] : ['quit'];
  },

  parseStop(text) {
    const events = findDebuggerEvents(text, 'winedbg');
    if (EXIT_RE.test(text)) return stopFromEvents('exit', text, events, { processExited: true });
    if (CTRL_C_RE.test(text)) return stopFromEvents('break-in', text, events);
    if (BREAKPOINT_RE.test(text)) return stopFromEvents('breakpoint', text, events);
    if (events.length > 0) return stopFromEvents('exception', text, events);
    if (STARTING_RE.test(text)) return stopFromEvents('initial', text, events);
    return stopFromEvents('unknown', text, events);
  },

  validateCommand(command) {
    refuseBadCommand(command);
    // `print 1; print 2` gives `Syntax Error (;)` and runs only the first part.
    if (command.includes(';')) {
      throw new UnsafeArgumentError(
        'winedbg cannot chain commands with `;`; send them one at a time.',
        { command },
      );
    }
  },

  spawnCommand(file, args) {
    // Preset the tty before winedbg starts: without it ~30 % of sessions hang on the first
    // command. Never `stty raw`: it turns off ISIG and Ctrl-C stops working.
    return {
      file: 'sh',
      args: ['-c', 'stty -icrnl -icanon -echo; exec "$0" "$@"', file, ...args],
    };
  },

  startFailure(banner) {
    const match = CANT_ATTACH_RE.exec(banner);
    if (!match) return null;
    return {
      reason: 'attach-failed',
      message: `winedbg cannot attach to process 0x${match[1]}: error ${match[2]}`,
    };
  },

  isLive: isLiveTarget,
};
