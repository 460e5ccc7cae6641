// Run by Windows node (test/windows/pty.windows.ts): the engine host on a dump prints a last line
// and quits at once; did that line come before the exit, and was the exit reported on the end of
// conhost's output pipe (the pseudo console closed when the child exited) or by node-pty's quiet
// timer (the output socket destroyed, never ended)? node-pty's socket is a private field
// (@lydell/node-pty 1.1.0 windowsPtyAgent.js `_outSocket`), read here only to tell the two apart.
// Prints `EXIT <code> last-line-before-exit=<bool> output-ended=<bool>`.
// Usage: node.exe pty-console-end.js HOST.EXE DUMP [keep]   (keep: keepConsoleAtExit, as a launch)
import { PtyProcess } from '../../../dist/src/pty/pty-process.js';

const [host, dump, keep] = process.argv.slice(2);
const child = PtyProcess.spawn({
  file: host,
  args: ['-snul', '-z', dump, '-c', '.echo LAST-LINE-BEFORE-QUIT;q'],
  keepConsoleAtExit: keep === 'keep',
});
let text = '';
child.onData((chunk) => (text += chunk));
let ended = false;
child.pty._agent._outSocket.on('end', () => (ended = true));
const exit = await child.exited;
process.stdout.write(
  `EXIT ${String(exit.exitCode)} last-line-before-exit=${String(text.includes('LAST-LINE-BEFORE-QUIT'))} output-ended=${String(ended)}\n`,
);
