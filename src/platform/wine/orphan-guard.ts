// What keeps a live target alive when the harness dies without a word (kill -9, OOM killer, a
// crash of node itself), on a Unix host where the debugger runs under Wine on a pseudo-terminal.
//
// What happened before: the harness's death closes the pty's master side; the kernel hangs the
// terminal up and sends SIGHUP to the session leader and, when that exits, to its process group
// (the debugger, its conhost, a program the debugger launched). SIGHUP's default action ends a Wine
// process at once; the debugger's debug object closes with DEBUG_KILL_ON_CLOSE still set (winedbg
// never clears it, and DbgEng set it aside here: see test/targets/dbgeng-host), and wineserver
// then terminates every process it debugged, as Windows does for a debugger whose thread ends
// (DebugSetProcessKillOnExit, https://learn.microsoft.com/windows/win32/api/winbase/nf-winbase-debugsetprocesskillonexit).
//
// What this does instead, in two parts:
// 1. The debugger starts with SIGHUP ignored (`trap '' HUP`; an ignored signal stays ignored
//    across exec, POSIX exec(3p)), so the hang-up leaves it alive and its next read of the
//    terminal gets end-of-file. Both debuggers take that as their quit: winedbg's parser turns
//    EOF into its `quit`, which detaches (programs/winedbg/dbg.y, `tEOF`; tgt_active.c closes each
//    process without killing it), and the engine's console host stops reading and exits with the
//    targets detached (-pd).
// 2. A debugger that is running its target reads nothing until the next stop. A small guard
//    process, started in its own session so that nothing aimed at the harness reaches it, holds
//    a pipe from the harness. When that pipe ends without the harness's `release` (the harness is
//    gone), the guard waits a moment for a debugger that was at its prompt to quit by itself, and
//    if the debugger is still there it sends SIGINT to the debugger's process group: the same
//    Ctrl-C the harness's own break-in sends through the terminal (ISIG). Wine turns SIGINT into
//    a CTRL_C_EVENT, the debugger breaks in, prompts, reads end-of-file and detaches.
import { spawn, type ChildProcess } from 'node:child_process';

/** How long the guard lets a debugger at its prompt quit on end-of-file before the Ctrl-C. */
export const GUARD_GRACE_SECONDS = 2;
/** How long release() waits for the guard to exit before it is killed. */
const RELEASE_DEADLINE_MS = 2_000;

// $1: the debugger's pty child, the leader of its session and process group. One `read`: a line
// `release` is the harness ending normally; end-of-file is the harness gone. The leader's absence
// after the grace means the debugger already quit (a launched target may still be in the group,
// and must not get a Ctrl-C then).
const GUARD_SCRIPT = [
  'IFS= read -r word || word=',
  '[ "$word" = release ] && exit 0',
  `sleep ${GUARD_GRACE_SECONDS}`,
  'kill -0 "$1" 2>/dev/null || exit 0',
  // `kill -INT -PGID`, without `--`: dash (Debian's sh) takes `--` for a pid and signals nothing.
  'kill -INT "-$1" 2>/dev/null',
  'exit 0',
].join('\n');

/** `file args…` run with SIGHUP ignored, for a debugger that must outlive its terminal. */
export function hangupProofCommand(
  file: string,
  args: readonly string[],
): { file: string; args: string[] } {
  return { file: 'sh', args: ['-c', 'trap "" HUP; exec "$0" "$@"', file, ...args] };
}

export interface OrphanGuard {
  /** The guard's pid (tests). */
  readonly pid: number;
  /** The harness ends the session itself: the guard exits without signalling; resolves when reaped. */
  release(): Promise<void>;
}

/**
 * Starts the guard for the debugger whose pty child is `debuggerPid`. The guard holds no event
 * loop reference: a harness that ends normally calls release(); one that dies leaves it to act.
 */
export function startOrphanGuard(debuggerPid: number): OrphanGuard {
  const child: ChildProcess = spawn(
    'sh',
    ['-c', GUARD_SCRIPT, 'cdb-harness-guard', String(debuggerPid)],
    {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  const exited = new Promise<void>((done) => {
    child.once('exit', () => done());
    child.once('error', () => done());
  });
  child.unref();
  const stdin = child.stdin;
  // The pipe must not keep the harness alive; an EPIPE after the guard is gone is harmless.
  stdin?.on('error', () => undefined);
  (stdin as unknown as { unref?: () => void } | null)?.unref?.();
  let released: Promise<void> | null = null;
  return {
    pid: child.pid ?? -1,
    release() {
      released ??= (async () => {
        stdin?.end('release\n');
        let timer: NodeJS.Timeout | undefined;
        const late = new Promise<'late'>((done) => {
          timer = setTimeout(() => done('late'), RELEASE_DEADLINE_MS);
        });
        try {
          if ((await Promise.race([exited, late])) === 'late') {
            child.kill('SIGKILL');
            await exited;
          }
        } finally {
          clearTimeout(timer);
        }
      })();
      return released;
    },
  };
}
