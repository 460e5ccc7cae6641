// node-pty's ConPTY backend keeps the event loop alive after its child has exited: the worker
// thread that drains the console's output pipe (ConoutConnection) is terminated only by kill(),
// and the input socket is never closed (node-pty issue #887,
// https://github.com/microsoft/node-pty/issues/887: "the ConoutConnection worker thread, its
// internal sockets, and several cleanup timeouts are never unref()'d"; node-pty 1.1.0,
// lib/windowsPtyAgent.js _$onProcessExit/_cleanUpProcess, lib/windowsConoutConnection.js
// dispose). A CLI run that started a debugger never ended on Windows. Once the child has exited
// nothing more can come through either pipe, so both sockets are closed and the worker ended
// here. kill() is not used for that: it forks conpty_console_list_agent (another node process)
// and closes the pseudo console, which can also end processes still attached to it (#965).
// The fields are node-pty's private ones, looked up defensively: a release that finds none of
// them does nothing (a later node-pty may have fixed this itself).
import type { IPty } from '@lydell/node-pty';

interface Closable {
  destroy?: () => void;
  unref?: () => void;
}
interface WorkerLike {
  terminate?: () => Promise<number>;
  unref?: () => void;
}
interface WindowsAgent {
  _inSocket?: Closable;
  _outSocket?: Closable & { pending?: boolean; once?: (event: 'connect', f: () => void) => void };
  _conoutSocketWorker?: { _worker?: WorkerLike; _drainTimeout?: NodeJS.Timeout };
  _closeTimeout?: NodeJS.Timeout;
  _$onProcessExit?: (exitCode: number) => void;
  _ptyNative?: { kill?: (pty: number) => void };
  _pty?: number;
}

/** What was released (for tests): the names of the handles closed. */
export function releaseConptyHandles(pty: IPty): string[] {
  const agent = (pty as unknown as { _agent?: WindowsAgent })._agent;
  if (agent === undefined || agent === null) return [];
  const released: string[] = [];
  for (const [name, socket] of [
    ['inSocket', agent._inSocket],
    ['outSocket', agent._outSocket],
  ] as const) {
    if (socket?.destroy) {
      socket.destroy();
      released.push(name);
    }
  }
  const connection = agent._conoutSocketWorker;
  if (connection?._drainTimeout) clearTimeout(connection._drainTimeout);
  if (agent._closeTimeout) agent._closeTimeout.unref?.();
  const worker = connection?._worker;
  if (worker?.terminate) {
    worker.unref?.();
    worker.terminate().catch(() => undefined);
    released.push('conoutWorker');
  }
  return released;
}

/**
 * node-pty reports a ConPTY child's exit only after its output pipe has been quiet for 1 s
 * (FLUSH_DATA_INTERVAL in lib/windowsPtyAgent.js: after the native exit callback, a timer that
 * every data event restarts), since conhost may still hold output the child wrote. That second
 * was the largest part of each dump's cost as a Windows process (a 6-dump analyze: the exit came
 * 1.02-1.32 s after cdb's `quit:`; 14-43 ms on Linux). Closing the pseudo console once the child
 * has exited (ClosePseudoConsole, which node-pty's native kill() calls) makes conhost write what
 * it still holds and end the pipe
 * (https://learn.microsoft.com/windows/console/closepseudoconsole): node-pty then reports the
 * exit on that end, after the last byte, 60-90 ms after the child's exit under Wine. Only for a
 * console no other process can be attached to: a program the debugger launched (and detached
 * from) is, and closing the console would end it (node-pty #965), so such sessions keep
 * node-pty's timer; an attached target has a console of its own. node-pty's own kill() is not
 * used (it forks another node process to list the console's processes and kills them).
 * Returns true when the hook was installed (node-pty's private fields were found).
 */
export function closeConsoleAtExit(pty: IPty): boolean {
  const agent = (pty as unknown as { _agent?: WindowsAgent })._agent;
  const onProcessExit = agent?._$onProcessExit;
  const native = agent?._ptyNative;
  const out = agent?._outSocket;
  if (
    agent === undefined ||
    typeof onProcessExit !== 'function' ||
    typeof native?.kill !== 'function' ||
    typeof agent._pty !== 'number' ||
    out === undefined
  ) {
    return false;
  }
  const id = agent._pty;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    try {
      native.kill?.(id);
    } catch {
      // Already closed: node-pty's timer still reports the exit.
    }
  };
  const onExit = (exitCode: number) => {
    onProcessExit.call(agent, exitCode);
    // A child that ended before node-pty's worker connected the output socket: close once it has,
    // so its 'close' (the exit event) is heard.
    if (out.pending === true && out.once) out.once('connect', close);
    else close();
  };
  // The native side calls agent._$onProcessExit(code) through the instance, so this one runs.
  agent._$onProcessExit = onExit;
  return true;
}
