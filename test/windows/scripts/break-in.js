// Run by Windows node (test/windows/break-in.windows.ts): a DebuggerSession of the engine host
// (ConPTY) attached to PID, go, interrupt() the host's way, then close(). Prints
// `STOP <kind> <breakInBy> <fallback>`, then `END detached=<bool>`, or `ERROR <message>`.
// Usage: node.exe break-in.js HOST.EXE PID [auto|debug-break|ctrl-c]
import { DebuggerSession } from '../../../dist/src/engine/debugger-session.js';

const [debuggerPath, pid, breakIn = 'auto'] = process.argv.slice(2);
let session;
try {
  session = await DebuggerSession.start({
    dialect: 'cdb',
    target: { kind: 'attach', pid: Number(pid) },
    debuggerPath,
    breakIn,
  });
  await session.go();
  const stop = await session.interrupt({ timeoutMs: 30_000 });
  process.stdout.write(
    `STOP ${stop.kind} ${stop.breakInBy ?? '-'} ${JSON.stringify(stop.breakInFallback ?? '')}\n`,
  );
  const end = await session.close();
  process.stdout.write(`END detached=${String(end.detached)}\n`);
} catch (error) {
  process.stdout.write(`ERROR ${error instanceof Error ? error.message : String(error)}\n`);
  await session?.close().catch(() => undefined);
}
