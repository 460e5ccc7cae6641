// One-shot runs of cdbh-diag (probe, dump with no session open): one reply line, or the typed
// error it reported; a deadline and an AbortSignal on the wait, the child reaped either way.
import { spawn } from 'node:child_process';
import { waitWithDeadline } from '../../deadline.js';
import { AbortedError, CommandFailedError, TimeoutError } from '../../../errors.js';
import { diagError, helperEnv, type DiagOpenOptions } from './helper-process.js';
import { locateDiagHelper } from './locate.js';
import { parseDiagLine, type DiagDump, type DiagLine, type DiagProbe } from './protocol.js';

/** From spawn to the reply (the first run JIT-compiles the helper). */
const DEFAULT_TIMEOUT_MS = 60_000;

/** One-shot helper run (probe, dump): its single reply line, or the typed error it reported. */
async function runOnce(
  args: readonly string[],
  options: DiagOpenOptions & { timeoutMs: number },
): Promise<DiagLine> {
  const helper = locateDiagHelper(options.env, options.helperPath);
  const child = spawn(helper.file, [...helper.args, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: helperEnv(options.env),
  });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    if (out.length < 1_000_000) out += c;
  });
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    if (err.length < 10_000) err += c;
  });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.once('error', () => undefined);
  try {
    await waitWithDeadline(exited, {
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      onTimeout: () =>
        new TimeoutError(`cdbh-diag ${args[0] ?? ''} on pid ${options.pid}`, options.timeoutMs),
      onAbort: () => new AbortedError(`aborted: cdbh-diag ${args[0] ?? ''}`),
    });
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw error;
  }
  const first = out.split('\n').find((l) => l.trim() !== '');
  if (first === undefined) {
    throw new CommandFailedError(`cdbh-diag ${args[0] ?? ''} said nothing`, {
      lastOutput: err.split('\n'),
    });
  }
  const line = parseDiagLine(first);
  if (line.kind === 'error') throw diagError(line, options.pid);
  return line;
}

/** Is `pid` a .NET process with a diagnostics channel? Its runtime folder, or a typed error. */
export async function probeDotnet(
  options: DiagOpenOptions & { timeoutMs?: number },
): Promise<DiagProbe> {
  const line = await runOnce(['probe', '--pid', String(options.pid)], {
    ...options,
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  if (line.kind !== 'probe')
    throw new CommandFailedError(`cdbh-diag probe: unexpected ${line.kind}`);
  return line;
}

/** A dump of `pid` through the channel, with no session open. */
export async function writeDotnetDump(
  path: string,
  kind: 'full' | 'heap' | 'mini' | 'triage',
  options: DiagOpenOptions & { timeoutMs: number },
): Promise<DiagDump> {
  const args = ['dump', '--pid', String(options.pid), '--path', path, '--type', kind];
  const line = await runOnce(args, options);
  if (line.kind !== 'dump') throw new CommandFailedError(`cdbh-diag dump: unexpected ${line.kind}`);
  return line;
}
