// A process's committed memory read from outside, never attaching: native/commit-probe
// (VirtualQueryEx over the address space, the MEM_COMMIT total !address -summary prints), run on
// the target's host. For debuggers that cannot total it themselves (the Debugger Engine without
// exts.dll has no !address).
import { nativeHelperCommand, nativeHelperPath } from './native-helper.js';

/** The committed bytes, the process gone, or why the probe could not say. */
export type CommitProbeReading =
  { bytes: number; privateBytes: number } | { gone: true } | { unavailable: string };

/** One walk of the address space is bounded (one query per region). */
const PROBE_DEADLINE_MS = 30_000;

// COMMIT 74244096 PRIVATE 54792192 REGIONS 82
const COMMIT_RE = /^COMMIT (\d+) PRIVATE (\d+) REGIONS \d+\r?$/m;
// GONE 99999
const GONE_RE = /^GONE \d+\r?$/m;

/** Reads the probe's line (native/commit-probe/commit-probe.c says its shape). */
export function readCommitProbe(exitCode: number | undefined, stdout: string): CommitProbeReading {
  const commit = COMMIT_RE.exec(stdout);
  if (exitCode === 0 && commit !== null) {
    return { bytes: Number(commit[1]), privateBytes: Number(commit[2]) };
  }
  if (exitCode === 0 && GONE_RE.test(stdout)) return { gone: true };
  const said = stdout.trim().split(/\r?\n/)[0] ?? '';
  return {
    unavailable: `commit-probe.exe exited ${String(exitCode)}${said === '' ? '' : `: ${said.slice(0, 200)}`}`,
  };
}

/** Runs the probe on Windows pid `pid` (directly on Windows, through the target's Wine on Linux). */
export async function probeCommit(
  pid: number,
  options: { env: NodeJS.ProcessEnv; signal?: AbortSignal },
): Promise<CommitProbeReading> {
  const helper = nativeHelperPath('commit-probe', 'CDB_HARNESS_COMMIT_PROBE', options.env);
  if (!helper.exists) {
    return {
      unavailable: `the commit probe ${helper.path} is missing (scripts/build-native.sh builds it; CDB_HARNESS_COMMIT_PROBE names another)`,
    };
  }
  const command = nativeHelperCommand(helper.path, [String(pid)]);
  // execa is loaded here, not at the top: src/platform/index.ts re-exports this module, and
  // `inspect` must not load execa (test/cli/main.test.ts).
  const { execa } = await import('execa');
  const result = await execa(command.file, command.args, {
    env: options.env,
    reject: false,
    timeout: PROBE_DEADLINE_MS,
    maxBuffer: 64 * 1024,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  if (result.failed && result.exitCode === undefined) {
    return { unavailable: `commit-probe.exe did not run: ${result.shortMessage}` };
  }
  return readCommitProbe(result.exitCode, String(result.stdout));
}
