// Run by Windows node (test/windows/pty.windows.ts): a PtyProcess whose child has exited must
// leave nothing that keeps node running. Prints EXITED <code>, then node should end by itself.
// Usage: node.exe pty-exit.js PROGRAM [ARGS…]
import { PtyProcess } from '../../../dist/src/pty/pty-process.js';

const [file, ...args] = process.argv.slice(2);
const child = PtyProcess.spawn({ file, args });
const exit = await child.exited;
process.stdout.write(`EXITED ${String(exit.exitCode)}\n`);
