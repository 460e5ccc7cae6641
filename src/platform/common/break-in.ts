// Breaking into a live target from outside its debugger: native/break-in (DebugBreakProcess on the
// target, which raises a breakpoint on a new thread for the attached debugger to stop at), the way
// Windows debuggers break in (https://learn.microsoft.com/windows/win32/api/winbase/nf-winbase-debugbreakprocess).
// It does not go through the debugger's console, so it works where the console's Ctrl-C does not
// (Wine's conhost closes a pseudo console on byte 0x03). The helper refuses a target no debugger
// is attached to: an unhandled breakpoint would end it.
import { nativeHelperCommand, nativeHelperPath } from './native-helper.js';

/** How a break-in from outside went: it broke, or why not (the caller falls back to Ctrl-C). */
export type BreakInOutcome = { broke: true } | { broke: false; reason: string };

/** A helper run is bounded: OpenProcess, one query and one remote thread. */
const HELPER_DEADLINE_MS = 20_000;

// BROKE 32
const BROKE_RE = /^BROKE \d+\r?$/m;
// NOT-DEBUGGED 32 · FAILED OpenProcess 5
const REFUSED_RE = /^(NOT-DEBUGGED \d+|FAILED \w+ \d+)\r?$/m;

/** Reads the helper's one line (native/break-in/break-in.c says its shape). */
export function readBreakInAnswer(exitCode: number | undefined, stdout: string): BreakInOutcome {
  if (exitCode === 0 && BROKE_RE.test(stdout)) return { broke: true };
  const said = REFUSED_RE.exec(stdout)?.[1];
  return {
    broke: false,
    reason:
      said === undefined
        ? `break-in.exe exited ${String(exitCode)} and printed ${JSON.stringify(stdout.slice(0, 200))}`
        : `break-in.exe: ${said}`,
  };
}

/**
 * Runs the helper on Windows pid `pid` (directly on Windows, through the target's Wine on
 * Linux). Never throws: a missing helper or a refusal is an outcome with the reason.
 */
export async function breakInWithHelper(
  pid: number,
  options: {
    env: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    platform?: NodeJS.Platform;
    deadlineMs?: number;
  },
): Promise<BreakInOutcome> {
  const helper = nativeHelperPath('break-in', 'CDB_HARNESS_BREAK_IN', options.env);
  if (!helper.exists) {
    return {
      broke: false,
      reason: `the break-in helper ${helper.path} is missing (scripts/build-native.sh builds it; CDB_HARNESS_BREAK_IN names another)`,
    };
  }
  const command = nativeHelperCommand(helper.path, [String(pid)], options.platform);
  // execa is loaded here, not at the top: src/platform/index.ts re-exports this module, and
  // `inspect` must not load execa (test/cli/main.test.ts).
  const { execa } = await import('execa');
  const result = await execa(command.file, command.args, {
    env: options.env,
    reject: false,
    timeout: Math.min(options.deadlineMs ?? HELPER_DEADLINE_MS, HELPER_DEADLINE_MS),
    maxBuffer: 64 * 1024,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  if (result.failed && result.exitCode === undefined) {
    return { broke: false, reason: `break-in.exe did not run: ${result.shortMessage}` };
  }
  return readBreakInAnswer(result.exitCode, String(result.stdout));
}
