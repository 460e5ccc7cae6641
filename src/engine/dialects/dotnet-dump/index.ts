// dotnet-dump (https://learn.microsoft.com/dotnet/core/diagnostics/dotnet-dump), the .NET
// diagnostics tool that runs natively on Linux: `collect` writes a dump of a live .NET process,
// `analyze` runs SOS on it and prints the same SOS text as cdb + SOS on Windows, so the same
// parsers read it. It is no debugger of a running process: it cannot attach, stop, go or break,
// so every live-session entry point here refuses with a UsageError; heap-trend reaches it through
// `heapSampling` (a heap dump per sample), and its SOS replies come from a batch of `-c` commands
// (tool-run.ts says why not the interactive prompt).
import { availableParallelism } from 'node:os';
import { UsageError } from '../../../errors.js';
import { promptRules } from '../common/prompt-rules.js';
import { isLiveTarget } from '../common/live-target.js';
import { stopFromEvents } from '../common/stop-event.js';
import { refuseBadCommand, refuseControlChars } from '../common/unsafe-text.js';
import { readElfCoreFile } from '../common/elf-core-file.js';
import type { CoreDumpAnalysis, Dialect, LiveDumpTool } from '../common/types.js';
import { findDotnetTool, locateDotnetTool } from './locate.js';
import { analyzeDump, collectDump } from './tool-run.js';

// The interactive prompt of `dotnet-dump analyze`: `> `
const PROMPT_RE = />\s?$/;
const LEADING_PROMPT_RE = /^(?:> )+/;

// Loaded on first use: only `dump --engine dotnet-dump` needs it.
const liveDump: LiveDumpTool = {
  collect: async (pid, path, kind, options) =>
    (await import('./live-dump.js')).dotnetLiveDump.collect(pid, path, kind, options),
  verify: async (path) => (await import('./live-dump.js')).dotnetLiveDump.verify(path),
  readCommit: async (pid) => (await import('./live-dump.js')).dotnetLiveDump.readCommit(pid),
};

// `analyze --engine dotnet-dump`: the cores dotnet-dump writes are named `core_<date>_<time>`
// (`dotnet-dump collect` without -o), createdump's `coredump.<pid>`; `.core` is this project's
// habit (heap-trend samples, tests). Other names are taken when named or with --ext.
const analyzeCore: CoreDumpAnalysis['analyze'] = async (dump, commands, options) => {
  const tool = locateDotnetTool('dotnet-dump', options.env, options.debuggerPath);
  return analyzeDump(tool, dump, commands, options);
};

const coreDumps: CoreDumpAnalysis = {
  extensions: ['.core'],
  check: readElfCoreFile,
  analyze: analyzeCore,
};

function notADebugger(what: string): never {
  throw new UsageError(
    `dotnet-dump cannot ${what}: it writes and reads .NET dumps (use it with dump or heap-trend --engine dotnet-dump, or use cdb or winedbg).`,
  );
}

export const dotnetDumpDialect: Dialect = {
  name: 'dotnet-dump',
  ...promptRules(PROMPT_RE, LEADING_PROMPT_RE),
  lastEventCommand: 'pe',
  triageScript: 'triage.dotnet-dump.txt',
  abilities: {
    noninvasiveAttach: false,
    fullMemoryDumps: true,
    dumpExceptionIsAttachBreak: false,
    sos: true,
    crashAnalysis: false,
    printsPassedExceptions: false,
    chanceInDumps: false,
    ctrlCMidStopEndsDebugger: false,
    sizeEstimate: null,
    windowsTargets: false,
    symbolPath: false,
  },
  identify: {
    lastEventAtEveryStop: false,
    readLastEvent: () => ({ code: null, chance: null, description: null }),
    stackCommand: () => 'clrstack',
  },
  heapSampling: {
    style: 'dump-per-sample',
    source: 'clr-generation',
    dumpName: (index) => `sample-${String(index).padStart(4, '0')}.core`,
    async collect(pid, path, options) {
      const tool = locateDotnetTool('dotnet-dump', options.env, options.debuggerPath);
      return collectDump(tool, pid, path, { ...options, kind: 'heap' });
    },
    analyze: analyzeCore,
  },

  locateBinary(env) {
    return locateDotnetTool('dotnet-dump', env).file;
  },
  findBinary(env) {
    return findDotnetTool('dotnet-dump', env)?.display;
  },
  listProcesses: async (options) =>
    (await import('./process-list.js')).listDotnetProcesses(options),
  // A .NET process on Linux is a Linux process: its pid is the /proc one (ProcDump -c/-cl).
  processCpu: async (pid) =>
    (await import('./live-dump.js')).linuxProcessCpu(pid, availableParallelism()),
  // No event stops a .NET process at its exit from outside: the diagnostics port has no such
  // command (https://github.com/dotnet/diagnostics/blob/main/documentation/design-docs/ipc-protocol.md).
  exitEvent: {
    refused:
      'dotnet-dump cannot stop a process at its exit (-t): the .NET diagnostics port has no exit event; to get a dump when a .NET process crashes set DOTNET_DbgEnableMiniDump=1 before it starts',
  },
  liveDump,
  coreDumps,
  launchArgs(target) {
    if (target.kind !== 'dump') notADebugger('attach to or launch a process');
    refuseControlChars('The dump path', target.path);
    return ['analyze', target.path];
  },
  spawnCommand: (file, args) => ({ file, args: [...args] }),
  startFailure: () => null,
  launchedPid: () => undefined,
  setupCommands: () => [],
  // An unknown command is the marker: `ERROR: Unrecognized SOS command 'MARKER'` (REPL only).
  markerCommand: (marker) => marker,
  isMarkerLine: (line, marker) => line.trimEnd().endsWith(`Unrecognized SOS command '${marker}'`),
  validateCommand(command) {
    refuseBadCommand(command);
  },
  goCommand: () => notADebugger('run a target'),
  isGoCommand: () => false,
  parseStop: (text) => stopFromEvents('unknown', text, []),
  findEvents: () => [],
  isTargetExitText: () => false,
  writeDumpCommand: () => notADebugger('write a dump from a session (heap-trend runs collect)'),
  exceptionBreakCommands: () => [],
  endCommands: () => ['exit'],
  isLive: isLiveTarget,
};
