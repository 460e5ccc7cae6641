// Kills a real `cdb-harness watch` with SIGKILL while it watches a target, then waits for the
// debugger it left behind to go: the shared part of the harness-death tests for winedbg
// (test/watch/watch-harness-death.test.ts) and the Debugger Engine
// (test/dbgeng/harness-death.dbgeng.ts).
import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import { watch, type WatchOptions } from '../../src/workflows/watch/watch.js';
import { runCli } from './cli.js';
import { makeTempDir } from './temp-dir.js';
import { pollUntil, type RunningTarget } from './wine.js';

/** Processes whose command line matches `pattern` (Wine rewrites argv to the Windows one). */
export function processesMatching(pattern: RegExp): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/\) [ZX] /.test(readFileSync(`/proc/${name}/stat`, 'utf8'))) continue;
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'latin1').replace(/\0/g, ' ');
      if (pattern.test(cmdline)) found.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * Runs `watch -p PID …` as a child process, kills it with SIGKILL once it says `Watching`, and
 * resolves when no process matching `debuggerRe` is left (or rejects after `goneWithinMs`).
 */
export async function killWatchMidway(
  pid: number,
  watchArgs: readonly string[],
  debuggerRe: RegExp,
  options: { env: NodeJS.ProcessEnv; goneWithinMs?: number },
): Promise<{ stderr: string; code: number | null }> {
  let killed = false;
  const run = await runCli(
    ['watch', '-p', String(pid), ...watchArgs, '--out', makeTempDir('death')],
    {
      env: options.env,
      timeoutMs: 90_000,
      onStderr: (soFar, child) => {
        if (!killed && /^Watching /m.test(soFar)) {
          killed = true;
          child.kill('SIGKILL');
        }
      },
    },
  );
  if (!killed) throw new Error(`watch ended before it was watching:\n${run.stderr}`);
  await pollUntil(
    () => (processesMatching(debuggerRe).length === 0 ? true : undefined),
    options.goneWithinMs ?? 30_000,
    `the debugger (${debuggerRe}) to end after the harness was killed`,
    100,
  );
  return { stderr: run.stderr, code: run.code };
}

/** A new watch of the target attaches and detaches cleanly, and the target still runs. */
export async function expectWatchedAgain(
  target: RunningTarget,
  options: Omit<WatchOptions, 'target' | 'outDir' | 'durationMs'>,
): Promise<void> {
  const again = await watch({
    ...options,
    target: { kind: 'pid', pid: target.pid },
    outDir: makeTempDir('watch-again'),
    durationMs: 1500,
  });
  expect(again.error, JSON.stringify(again.error)).to.equal(undefined);
  expect(again.detached).to.equal(true);
  expect(again.targetAlive).to.equal(true);
  expect(await target.isRunning(2000, /^tick/)).to.equal(true);
}
