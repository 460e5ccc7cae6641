// The target failures users hit when attaching or dumping, recognised from the debugger's own
// words and turned into a TargetError that says what happened and what to do about it.
// Shared by `dump` and `watch`.
import { isHarnessError, TargetError } from '../../errors.js';

export type TargetFailure =
  | 'access-denied'
  | 'already-debugged'
  | 'not-found'
  | 'exiting'
  | 'bitness'
  | 'dump-access-denied'
  | 'disk-full';

interface Rule {
  reason: TargetFailure;
  // A real sample line above each pattern.
  pattern: RegExp;
  explain: (pid: number | undefined) => string;
}

const who = (pid: number | undefined) => (pid === undefined ? 'the process' : `process ${pid}`);

const RULES: readonly Rule[] = [
  // cdb (the texts BugId matches, https://github.com/SkyLined/BugId):
  //   `Cannot debug pid 1234, NTSTATUS 0xC0000048`
  //   "An attempt to set a process's DebugPort or ExceptionPort was made, but a port already
  //   exists in the process… A non-invasive attach is still possible…"
  {
    reason: 'already-debugged',
    pattern: /NTSTATUS 0xC0000048\b/i,
    explain: (pid) =>
      `${who(pid)} is already being debugged by another debugger. Detach that debugger first, or ` +
      'use a noninvasive attach (`cdb-harness dump` attaches noninvasively with cdb; `watch` ' +
      'needs an invasive attach to see exceptions).',
  },
  // cdb: `Cannot debug pid 1234, Win32 error 0n5` / `"Access is denied."`
  {
    reason: 'access-denied',
    pattern:
      /Cannot debug pid \d+, Win32 error 0n5\b|Unable to initialize target, Win32 error 0n5\b/i,
    explain: (pid) =>
      `access to ${who(pid)} was denied. Run cdb-harness from an elevated (Administrator) prompt ` +
      'as the same or a more privileged user; protected processes (antimalware, PPL services) ' +
      'cannot be debugged at all.',
  },
  // cdb: `Cannot debug pid 4242, NTSTATUS 0xC00000BB` (x86 cdb on an x64 target)
  {
    reason: 'bitness',
    pattern: /NTSTATUS 0xC00000BB\b/i,
    explain: (pid) =>
      `the debugger's bitness does not match ${who(pid)} (NTSTATUS 0xC00000BB, "not supported"). ` +
      'Use the x64 cdb (Debugging Tools for Windows, x64 folder) for 64-bit processes and the x86 ' +
      'cdb for 32-bit ones; point --debugger or CDB_PATH at the right one.',
  },
  // cdb: `Cannot debug pid 1234, NTSTATUS 0xC000010A` (process is exiting)
  {
    reason: 'exiting',
    pattern: /NTSTATUS 0xC000010A\b/i,
    explain: (pid) => `${who(pid)} is exiting; there is nothing left to debug.`,
  },
  // cdb: `Cannot debug pid 1234, Win32 error 0n87` ("The parameter is incorrect.")
  // winedbg (`winedbg 99999`): `Can't attach process 1869f: error 87`
  {
    reason: 'not-found',
    pattern: /Win32 error 0n87\b|Can't attach process [0-9a-f]+: error 87\b/i,
    explain: (pid) =>
      `${who(pid)} does not exist (any more). Check the pid (decimal) with tasklist, or use --name.`,
  },
  // winedbg: `Can't attach process 0020: error 5` (the Win32 error printed in decimal)
  {
    reason: 'access-denied',
    pattern: /Can't attach process [0-9a-f]+: error 5\b/i,
    explain: (pid) => `access to ${who(pid)} was denied (error 5). Run as the user that owns it.`,
  },
  // `.dump` failure (ADPlus transcript): `Dump creation failed, Win32 error 0n5`
  {
    reason: 'dump-access-denied',
    pattern: /Dump creation failed, Win32 error 0n5\b/i,
    explain: (pid) =>
      `the debugger could not read ${who(pid)}'s memory to write the dump (Win32 error 0n5, access ` +
      'denied). Run elevated; a protected process cannot be dumped from user mode.',
  },
  // `.dump` failure on a full disk: `Dump creation failed, Win32 error 0n112` (ERROR_DISK_FULL)
  {
    reason: 'disk-full',
    pattern: /Win32 error 0n112\b|error 112\b/i,
    explain: () => 'the disk is full. Free space or choose another --out directory.',
  },
];

/** A TargetError for the first known failure in `text`, or null when nothing is recognised. */
export function explainTargetFailure(text: string, pid?: number): TargetError | null {
  for (const rule of RULES) {
    const match = rule.pattern.exec(text);
    if (match === null) continue;
    const line = text
      .split(/\r?\n/)
      .find((l) => rule.pattern.test(l))
      ?.trim();
    return new TargetError(rule.reason, rule.explain(pid), {
      ...(line === undefined ? {} : { lastOutput: [line] }),
    });
  }
  return null;
}

/**
 * An error from starting a session, rephrased when the debugger said something we know (the
 * engine reports an attach failure with the banner lines as `lastOutput`). Others pass through.
 */
export function translateStartError(error: unknown, pid?: number): unknown {
  if (!isHarnessError(error)) return error;
  const text = [error.shortMessage, ...error.lastOutput].join('\n');
  const known = explainTargetFailure(text, pid);
  if (known === null) return error;
  return new TargetError(known.reason, known.shortMessage, {
    lastOutput: error.lastOutput.length > 0 ? error.lastOutput : known.lastOutput,
    cause: error,
  });
}
