// cdb.exe (Debugging Tools for Windows): everything the harness knows about driving it. The
// command-line options and commands are documented at
// https://learn.microsoft.com/windows-hardware/drivers/debugger/cdb-command-line-options and
// https://learn.microsoft.com/windows-hardware/drivers/debuggercmds/commands; the output shapes
// are those of the real transcripts under test/fixtures/transcripts/.
import { promptRules } from '../common/prompt-rules.js';
import { UnsafeArgumentError } from '../../../errors.js';
import { findDebuggerEvents } from '../../../parsers/debugger-event.js';
import { parseLastEvent } from '../../../parsers/last-event.js';
import { isLiveTarget, refuseBadPid } from '../common/live-target.js';
import { stopFromEvents, type StopEvent } from '../common/stop-event.js';
import {
  refuseBadCommand,
  refuseChars,
  refuseControlChars,
  refuseNonAscii,
} from '../common/unsafe-text.js';
import type { Dialect, ExceptionBreakSettings } from '../common/types.js';
import { findCdb, locateCdb } from './locate.js';
import { missingExtensionLine } from './extension-missing.js';

// The prompt on the unfinished last line, possibly after partial output on the same line: `0:000> `, `1:019> `, `0:000:x86> `, `?:???> `. ConPTY may drop the trailing
// blank, so the space is optional.
const PROMPT_RE = /(?:\d+|\?):(?:\d+|\?\?\?)(?::x86)?> ?$/;
// Leading prompts on a complete line: `0:000> .echo X` (echoed input after a prompt).
const LEADING_PROMPT_RE = /^(?:(?:\d+|\?):(?:\d+|\?\?\?)(?::x86)?> ?)+/;
// Go-class commands (`p`, `t`, `pa`, `ta` step and come back at once: not go-class):
//   g   gh   gn   gc   gu   g 00007ff6`b0f81204   gn;
const GO_RE = /^\s*g[hncu]?(?:[\s;]|$)/i;
// A breakpoint stop (the line Code::Blocks' cdb driver also waits for): `Breakpoint 0 hit`
const BREAKPOINT_RE = /^Breakpoint \d+ hit\b/m;
// Process exit with `sxe epr` (transcript events/net4-unknown-exception-e0434352-before-sos-many.txt
// under test/fixtures/transcripts/):
//   ntdll!NtTerminateProcess+0x12:
const EXIT_RE = /^ntdll!(?:Nt|Zw)TerminateProcess\+0x[0-9a-f]+:$/m;
// A go-class command after the target has gone (the real Debugger Engine under Wine,
// test/fixtures/transcripts/dbgeng/watch-launch-raise-clr-second-chance.txt): with
// `.prompt_allow -sym` the exit stop prints no `ntdll!NtTerminateProcess` line, so the next `g`
// is the first sign:
//          ^ No runnable debuggees error in 'g'
const NO_DEBUGGEE_RE = /\^ No runnable debuggees error in '/;
// Attach failures (the texts BugId's cCdbWrapper_fAttachCdbToProcessForId.py matches,
// https://github.com/SkyLined/BugId):
//   Cannot debug pid 1234, Win32 error 0n87
//   Unable to initialize target, NTSTATUS 0xC0000048
const CANNOT_DEBUG_RE = /^Cannot debug pid (\d+), (.+)$/m;
const CANNOT_INIT_RE = /^Unable to initialize target, (.+)$/m;
// Launching a program: the first event banner names the new process (hex pid.tid):
//   (128.12c): Break instruction exception - code 80000003 (first chance)
const FIRST_EVENT_PID_RE = /^\(([0-9a-f]+)\.[0-9a-f]+\): /im;
// `.lastevent` at the exit-process event (the real Debugger Engine under Wine, this repository's
// lab): `Last event: 27c.280: Exit process 0:27c, code 7` (the code is hex, as cdb prints it).
const EXIT_EVENT_RE =
  /^Last event: [0-9a-f]+\.[0-9a-f]+: Exit process [0-9a-f]+:[0-9a-f]+, code ([0-9a-f]+)/im;
// `r rcx` at a breakpoint: `rcx=0000000000000007`
const RCX_RE = /\brcx=([0-9a-f]{1,16})\b/i;
// Exception codes for `sxe`: `e0434352`, `0xE06D7363`.
const CODE_RE = /^(?:0x)?([0-9a-f]{1,8})$/i;

export const cdbDialect: Dialect = {
  name: 'cdb',
  ...promptRules(PROMPT_RE, LEADING_PROMPT_RE),
  lastEventCommand: '.lastevent',
  triageScript: 'triage.cdb.txt',
  abilities: {
    noninvasiveAttach: true,
    fullMemoryDumps: true,
    dumpExceptionIsAttachBreak: false,
    sos: true,
    crashAnalysis: true,
    // Under `sxd` cdb prints a first-chance banner and goes on without a prompt.
    printsPassedExceptions: true,
    chanceInDumps: true,
    ctrlCMidStopEndsDebugger: false,
    sizeEstimate: 'address-summary',
    windowsTargets: true,
    symbolPath: true,
  },
  identify: {
    lastEventAtEveryStop: true,
    readLastEvent(text) {
      const record = parseLastEvent(text);
      return {
        code: record.code ?? null,
        chance: record.chance ?? null,
        description: record.description.length > 0 ? record.description : null,
        ...(record.threadId === undefined ? {} : { threadId: record.threadId }),
      };
    },
    exceptionRecordCommand: '.exr -1',
    stackCommand: (frames) => `k ${frames}`,
  },
  heapSampling: {
    style: 'attach-per-sample',
    source: 'heap',
    // Every NT heap and segment heap with its reserved and committed sizes.
    command: () => '!heap -s -h 0',
    // Memory by category in the same attach (ext.dll's usage table).
    categoriesCommand: '!address -summary',
  },
  commandUnavailable: missingExtensionLine,

  locateBinary: locateCdb,
  findBinary: findCdb,
  // Loaded on first use: only the commands that look for processes need it.
  listProcesses: async (options) =>
    (await import('./process-list.js')).listCdbHostProcesses(options),
  processCpu: async (pid, name, options) =>
    (await import('../../../platform/index.js')).processCpuSource(pid, name, {
      ...(options.env === undefined ? {} : { env: options.env }),
    }),
  performanceCounter: async (path, options) =>
    (await import('../common/typeperf.js')).typeperfCounterSource(path, {
      ...(options.env === undefined ? {} : { env: options.env }),
    }),
  // Two ways in: a breakpoint on ntdll!RtlExitUserProcess (where ExitProcess and a return from
  // main end up, the process whole: the real engine under Wine writes its dump there, while at
  // the exit event Wine answers "GenGetProcessInfo.Start failed, 0x80070005"), and the
  // exit-process event (`sxe epr`,
  // https://learn.microsoft.com/windows-hardware/drivers/debuggercmds/sx--sxd--sxe--sxi--sxn--sxr--sx---set-exceptions-)
  // for a TerminateProcess from outside, which on Windows still leaves the memory readable.
  exitEvent: {
    commands: ['sxe epr', 'bp ntdll!RtlExitUserProcess'],
    readExitEvent(text) {
      const match = EXIT_EVENT_RE.exec(text);
      if (match === null) return undefined;
      return { code: match[1] === undefined ? null : Number.parseInt(match[1], 16) };
    },
    // RtlExitUserProcess(NTSTATUS ExitStatus): on x64 the status is in rcx at the entry.
    exitCodeCommand: 'r rcx',
    readExitCode(text) {
      const match = RCX_RE.exec(text);
      return match?.[1] === undefined ? null : Number(BigInt(`0x${match[1]}`) & 0xffffffffn);
    },
  },

  launchArgs(target, options) {
    // -snul: no symbol-server sweeps for unqualified names (a lookup of a name with no module
    // otherwise asks every server for every module).
    const args = ['-snul'];
    if (options.symbolPath !== undefined) {
      refuseControlChars('The symbol path', options.symbolPath);
      args.push('-y', options.symbolPath);
    }
    for (const arg of options.extraArgs ?? []) args.push(arg);
    switch (target.kind) {
      case 'dump':
        refuseControlChars('The dump path', target.path);
        args.push('-z', target.path);
        break;
      case 'attach':
        refuseBadPid(target.pid);
        // -pd on every live attach: ending the session then detaches instead of killing.
        args.push('-p', String(target.pid), '-pd');
        if (target.noninvasive === true) args.push('-pv');
        break;
      case 'attach-name':
        refuseControlChars('The process name', target.name);
        args.push('-pn', target.name, '-pd');
        if (target.noninvasive === true) args.push('-pv');
        break;
      case 'launch':
        refuseControlChars('The program path', target.program);
        // -pd for a launched program too: it outlives a session that ends in any way, the
        // harness's death included (docs/harness-death.md).
        args.push('-pd', target.program);
        for (const arg of target.args) args.push(arg);
        break;
      case 'none':
        break;
    }
    return args;
  },

  markerCommand(marker) {
    return `.echo ${marker}`;
  },

  isMarkerLine(line, marker) {
    return line.trimEnd() === marker;
  },

  setupCommands() {
    // A bare prompt at each stop: no disassembly, registers, source or symbol lookups (BugId).
    return ['.prompt_allow -dis -ea -reg -src -sym'];
  },

  goCommand(stop: StopEvent | null) {
    return stop?.kind === 'exception' ? 'gn' : 'g';
  },

  isGoCommand(command) {
    return GO_RE.test(command);
  },

  writeDumpCommand(path, kind) {
    refuseControlChars('The dump path', path);
    refuseNonAscii('The dump path', path);
    // `"` would end the quoted path; `;` ends the command in cdb's parser; `${` expands aliases.
    refuseChars('The dump path', path, ['"', ';', '${']);
    if (path.trim() !== path || path.length === 0) {
      throw new UnsafeArgumentError(
        `The dump path must not be empty or padded: ${JSON.stringify(path)}`,
      );
    }
    return `.dump /o ${kind === 'full' ? '/ma' : '/m'} "${path}"`;
  },

  exceptionBreakCommands(settings: ExceptionBreakSettings) {
    const commands: string[] = [];
    if (settings.allFirstChance === true) commands.push('sxe *');
    else commands.push('sxd *');
    if (settings.av === true) commands.push('sxe av');
    if (settings.clr === true) commands.push('sxe clr');
    if (settings.cpp === true) commands.push('sxe eh');
    for (const code of settings.codes ?? []) {
      const match = CODE_RE.exec(code.trim());
      if (!match?.[1])
        throw new UnsafeArgumentError(`Not an exception code: ${JSON.stringify(code)}`);
      commands.push(`sxe 0x${match[1].toLowerCase().padStart(8, '0')}`);
    }
    return commands;
  },

  endCommands(target) {
    // `q` on an invasive live attach kills the target; `qd` detaches and exits
    // (https://learn.microsoft.com/windows-hardware/drivers/debuggercmds/qd--quit-and-detach-).
    return isLiveTarget(target) ? ['qd'] : ['q'];
  },

  findEvents(text) {
    return findDebuggerEvents(text, 'cdb');
  },

  isTargetExitText(text) {
    return EXIT_RE.test(text) || NO_DEBUGGEE_RE.test(text);
  },

  launchedPid(banner) {
    const match = FIRST_EVENT_PID_RE.exec(banner);
    return match?.[1] === undefined ? undefined : Number.parseInt(match[1], 16);
  },

  parseStop(text) {
    const events = findDebuggerEvents(text, 'cdb');
    if (EXIT_RE.test(text) || NO_DEBUGGEE_RE.test(text))
      return stopFromEvents('exit', text, events, { processExited: true });
    if (BREAKPOINT_RE.test(text)) return stopFromEvents('breakpoint', text, events);
    if (events.length > 0) return stopFromEvents('exception', text, events);
    return stopFromEvents('unknown', text, events);
  },

  validateCommand(command) {
    refuseBadCommand(command);
  },

  spawnCommand(file, args) {
    return { file, args: [...args] };
  },

  startFailure(banner) {
    const cannot = CANNOT_DEBUG_RE.exec(banner);
    if (cannot)
      return {
        reason: 'attach-failed',
        message: `cdb cannot debug pid ${cannot[1]}: ${cannot[2]}`,
      };
    const init = CANNOT_INIT_RE.exec(banner);
    if (init)
      return { reason: 'attach-failed', message: `cdb: unable to initialize target: ${init[1]}` };
    return null;
  },

  isLive: isLiveTarget,
};
