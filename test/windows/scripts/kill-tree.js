// Run by Windows node (test/windows/pty.windows.ts): killTree(PID) on this host, then whether the
// pid is still there. Prints KILLED, or FAILED <message>.
import { killTree } from '../../../dist/src/platform/index.js';

const pid = Number(process.argv[2]);
try {
  await killTree(pid, { deadlineMs: 8000 });
  process.stdout.write('KILLED\n');
} catch (error) {
  process.stdout.write(`FAILED ${error instanceof Error ? error.message : String(error)}\n`);
}
