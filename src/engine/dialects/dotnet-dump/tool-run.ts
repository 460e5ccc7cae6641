// Running dotnet-dump: `collect` writes a dump of a live .NET process, `analyze DUMP -c CMD …`
// runs SOS commands on it and exits. The analyze commands are run in batch (`-c` per command),
// each followed by `help exit` as a separator: its fixed text ("Exits interactive mode.") cannot
// be mistaken for SOS output, and unlike an unknown command it does not end the batch (dotnet-dump
// 10 stops at the first command that fails: `Unrecognized SOS command 'x'`, or an exception such as
// `gcroot 0` — recorded in test/fixtures/transcripts/dotnet-dump/). Why not the interactive prompt
// over a pty: dotnet-dump's line editor redraws the whole line on every key and asks the terminal
// for the cursor position (ESC[6n) around each prompt, so echoes are not lines; batch mode gives
// the same SOS text with none of that.
// Output goes to files (runToFiles) and is read back bounded: a `dumpheap -stat` of a big heap is
// megabytes.
import { rm } from 'node:fs/promises';
import { BadDumpError, IoError, TargetError, TimeoutError } from '../../../errors.js';
import { runToFiles } from '../common/run-to-file.js';
import type { SosBatchOutputs } from '../common/types.js';
import type { ToolCommand } from './locate.js';

export interface ToolRunOptions {
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** The separator command and the line of its output that marks the end of a command. */
export const SEPARATOR_COMMAND = 'help exit';
const SEPARATOR_LINE = '  Exits interactive mode.';
// The separator's whole reply, as dotnet-dump 10 prints it:
// Description:
//   Exits interactive mode.
//
// Usage:
//   > exit
const SEPARATOR_BLOCK_RE = /^Description:\n {2}Exits interactive mode\.\n\nUsage:\n {2}> exit\n?/m;

export type AnalyzeOutputs = SosBatchOutputs;

// Printed once as the dump loads, before the first command's reply, for a core that the runtime's
// own dump writer did not make (a kernel core, or one cut short), dotnet-dump 10:
// WARNING: This dump doesn't contain memory the .NET runtime's dump functionality usually adds. System dumps may be missing memory regions required by SOS commands. For best results, collect dumps using the appropriate tool for your scenario:  https://aka.ms/dotnet-dump-collection
const LOAD_WARNING_RE = /^WARNING: This dump doesn't contain memory\b.*\n/;

/** Runs `commands` on `dump` in one dotnet-dump process. */
export async function analyzeDump(
  tool: ToolCommand,
  dump: string,
  commands: readonly string[],
  options: ToolRunOptions,
): Promise<AnalyzeOutputs> {
  const args = [...tool.args, 'analyze', dump];
  for (const command of commands) args.push('-c', command, '-c', SEPARATOR_COMMAND);
  args.push('-c', 'exit');
  const run = await runToFiles(tool.file, args, {
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(tool.cwd === undefined ? {} : { cwd: tool.cwd }),
  });
  if (run.spawnError !== undefined) {
    throw new IoError(`could not start ${tool.display}: ${run.spawnError}`);
  }
  if (run.timedOut) {
    throw new TimeoutError(
      `dotnet-dump analyze did not finish ${commands.join(', ')} within ${options.timeoutMs} ms`,
      options.timeoutMs,
    );
  }
  const text = run.stdout.replace(/\r/g, '');
  const beforeAny = firstLine(`${text}\n${run.stderr}`);
  // `File does not exist: '…'.` / `The provided stream is in an unknown or unsupported file format.`
  if (run.exitCode !== 0 && !text.includes(SEPARATOR_LINE)) {
    throw new BadDumpError(dump, `dotnet-dump cannot read ${dump}: ${beforeAny}`);
  }
  let body = text.replace(/^Loading core dump: .*\n/, '');
  const notices: string[] = [];
  for (let m = LOAD_WARNING_RE.exec(body); m !== null; m = LOAD_WARNING_RE.exec(body)) {
    notices.push(m[0].trim());
    body = body.slice(m[0].length);
  }
  const parts = body.split(SEPARATOR_BLOCK_RE);
  const outputs = parts.slice(0, commands.length).filter((_, i) => i < parts.length - 1);
  const result: AnalyzeOutputs = { outputs, ...(notices.length === 0 ? {} : { notices }) };
  if (outputs.length < commands.length) {
    result.stopped = {
      index: outputs.length,
      command: commands[outputs.length] ?? '',
      text: (parts[outputs.length] ?? '').trim().split('\n').slice(0, 3).join(' '),
    };
  }
  return result;
}

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0 && !l.startsWith('Loading core dump')) ?? 'no output'
  );
}

export interface CollectResult {
  path: string;
  /** Spawn to exit of `dotnet-dump collect`: an upper bound of the time the target was stopped. */
  durationMs: number;
}

/** dotnet-dump collect's `--type` for each kind (`dotnet-dump collect --help`: Full, Heap, Mini, Triage). */
const COLLECT_TYPES = { heap: 'Heap', full: 'Full', mini: 'Mini' } as const;

/** `dotnet-dump collect -p PID --type Heap|Full|Mini -o PATH` (or dotnet-gcdump collect). */
export async function collectDump(
  tool: ToolCommand,
  pid: number,
  path: string,
  options: ToolRunOptions & { kind: 'heap' | 'full' | 'mini' | 'gcdump' },
): Promise<CollectResult> {
  const args =
    options.kind === 'gcdump'
      ? [...tool.args, 'collect', '-p', String(pid), '-o', path]
      : [
          ...tool.args,
          'collect',
          '-p',
          String(pid),
          '--type',
          COLLECT_TYPES[options.kind],
          '-o',
          path,
        ];
  const began = performance.now();
  const run = await runToFiles(tool.file, args, {
    env: options.env ?? process.env,
    timeoutMs: options.timeoutMs,
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(tool.cwd === undefined ? {} : { cwd: tool.cwd }),
  });
  const durationMs = Math.round((performance.now() - began) * 10) / 10;
  if (run.spawnError !== undefined) {
    throw new IoError(`could not start ${tool.display}: ${run.spawnError}`);
  }
  if (run.timedOut) {
    await rm(path, { force: true });
    throw new TimeoutError(
      `${tool.display} collect did not finish within ${options.timeoutMs} ms`,
      options.timeoutMs,
    );
  }
  // `[ERROR] … Unable to connect to the process` / `Process 99999 not running` (dotnet-dump 10)
  if (run.exitCode !== 0) {
    const said = firstLine(`${run.stderr}\n${run.stdout}`);
    throw new TargetError('collect-failed', `collect from pid ${pid} failed: ${said}`);
  }
  return { path, durationMs };
}
