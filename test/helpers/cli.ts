// Runs the real CLI (from source, through test/analyze/run-cli.ts) as a child process and
// collects its exit code and output: for tests of exit codes, stdout/stderr separation and
// signals. `onStderr` sees the stream as it arrives (to act when a line appears).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './wine.js';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: readonly string[],
  options: {
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    onStderr?: (soFar: string, child: ChildProcess) => void;
  } = {},
): Promise<CliRun> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(REPO_ROOT, 'test', 'analyze', 'run-cli.ts'), ...args],
    { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO_ROOT },
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
