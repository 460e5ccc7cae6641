// Runs the real CLI (from source, through test/analyze/run-cli.ts) as a child process and
// collects its exit code and output: for tests of exit codes, stdout/stderr separation and
// signals. `onStderr` sees the stream as it arrives (to act when a line appears).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from './wine.js';

// tsx's loader by its file URL: `--import tsx` would be looked up from the child's working
// directory, which a test may set outside the repository.
const TSX = pathToFileURL(join(REPO_ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    /** The working directory (default the repository root). */
    cwd?: string;
    timeoutMs?: number;
    onStderr?: (soFar: string, child: ChildProcess) => void;
  } = {},
): Promise<CliRun> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'), ...args],
    {
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      cwd: options.cwd ?? REPO_ROOT,
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    options.onStderr?.(stderr, child);
  });
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
