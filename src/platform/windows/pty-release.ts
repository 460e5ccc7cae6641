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
  _outSocket?: Closable;
  _conoutSocketWorker?: { _worker?: WorkerLike; _drainTimeout?: NodeJS.Timeout };
  _closeTimeout?: NodeJS.Timeout;
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
