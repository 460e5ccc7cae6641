// Runs a short command whose output goes to files, not pipes, and ends when the PROCESS exits.
// For `winedbg --command …` run outside any session: a winedbg that boots the Wine prefix (the
// first Wine process since wineserver exited) starts services.exe, explorer.exe… which inherit
// its stdout and stderr. With pipes, the output would not end until they exit, i.e. as long as
// any Wine process runs (a target started meanwhile keeps them alive): a listing that never
// returns. Files have no end to wait for, and the 'exit' event does not wait for inherited fds.
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AbortedError } from '../../../errors.js';

export interface FileRunResult {
  stdout: string;
  stderr: string;
  /** null when killed (deadline) or when it could not start. */
  exitCode: number | null;
  timedOut: boolean;
  /** Why it could not start (ENOENT: no such program), when it could not. */
  spawnError?: string;
}

export async function runToFiles(
  file: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; timeoutMs: number; signal?: AbortSignal; cwd?: string },
): Promise<FileRunResult> {
  if (options.signal?.aborted === true) throw new AbortedError(`${file} was not started`);
  const dir = await mkdtemp(join(tmpdir(), 'cdbh-run-'));
  const outPath = join(dir, 'stdout.txt');
  const errPath = join(dir, 'stderr.txt');
  const out = openSync(outPath, 'w');
  const err = openSync(errPath, 'w');
  let aborted = false;
  try {
    const ended = await new Promise<Omit<FileRunResult, 'stdout' | 'stderr'>>((resolve) => {
      const child = spawn(file, [...args], {
        env: options.env,
        stdio: ['ignore', out, err],
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
      });
      let timedOut = false;
      const kill = () => child.kill('SIGKILL');
      const onAbort = () => {
        aborted = true;
        kill();
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (result: Omit<FileRunResult, 'stdout' | 'stderr'>) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        resolve(result);
      };
      child.once('error', (error) =>
        finish({ exitCode: null, timedOut, spawnError: error.message }),
      );
      child.once('exit', (code) => finish({ exitCode: code, timedOut }));
    });
    if (aborted) throw new AbortedError(`${file} was interrupted`);
    const [stdout, stderr] = await Promise.all([
      readFile(outPath, 'utf8').catch(() => ''),
      readFile(errPath, 'utf8').catch(() => ''),
    ]);
    return { stdout, stderr, ...ended };
  } finally {
    closeSync(out);
    closeSync(err);
    await rm(dir, { recursive: true, force: true });
  }
}
