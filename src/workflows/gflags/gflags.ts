// Runs gflags.exe for one image: read its flags (`gflags /i IMAGE`), or turn the user-mode
// stack-trace database on or off (`gflags /i IMAGE +ust` / `-ust`). Windows only; needs an
// elevated prompt (it writes HKLM\…\Image File Execution Options).
import { basename } from 'node:path';
import { CommandFailedError, UsageError } from '../../errors.js';
import { locateWindowsTool, type ToolLookup } from '../windows-tools.js';
import { parseGflagsImageOutput, type GflagsImageSettings } from '../../parsers/gflags-output.js';

/** What the user must know before turning +ust on (shown by the CLI, returned for JSON). */
export const UST_WARNING =
  'The stack-trace database (+ust) records the call stack of every heap allocation: the target ' +
  'uses more memory (the database reserves up to 32 MB on x86, 64 MB on x64) and every ' +
  'allocation gets slower. It applies only to processes STARTED AFTER this change: restart the ' +
  'program. Turn it off again with --disable-ust when done.';

export interface GflagsOptions extends ToolLookup {
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Full path of gflags.exe (default: located next to cdb.exe, or GFLAGS_PATH). */
  gflagsPath?: string;
}

export interface GflagsResult extends GflagsImageSettings {
  command: string[];
  exitCode: number | null;
  stdout: string;
}

/** `C:\Apps\w3wp.exe` → `w3wp.exe`; gflags keys image options by file name only. */
export function imageFileName(image: string): string {
  const name = basename(image.replace(/\\/g, '/')).trim();
  if (
    !/^[^<>:"/|?*]+$/.test(name) ||
    [...name].some((ch) => ch.charCodeAt(0) < 0x20) ||
    name === '.' ||
    name === '..'
  ) {
    throw new UsageError(`not an image file name: ${JSON.stringify(image)}`);
  }
  return /\.[a-z0-9]+$/i.test(name) ? name : `${name}.exe`;
}

async function runGflags(args: string[], options: GflagsOptions): Promise<GflagsResult> {
  const file = options.gflagsPath ?? locateWindowsTool('gflags', options);
  // Loaded here, not at the top: execa is ~100 modules that `--help` and the dump readers
  // never need (bench/cli-start.ts).
  const { execa } = await import('execa');
  const result = await execa(file, args, {
    reject: false,
    timeout: options.timeoutMs ?? 30_000,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const stdout = String(result.stdout);
  const parsed = parseGflagsImageOutput(stdout);
  if (parsed.flags === null) {
    throw new CommandFailedError(
      `gflags ${args.join(' ')} did not report the image's settings (exit ${String(result.exitCode)}). ` +
        'Run from an elevated (administrator) prompt.',
      {
        command: [file, ...args].join(' '),
        lastOutput: `${stdout}\n${String(result.stderr)}`.split(/\r?\n/),
      },
    );
  }
  return { ...parsed, command: [file, ...args], exitCode: result.exitCode ?? null, stdout };
}

export function queryImageFlags(image: string, options: GflagsOptions = {}): Promise<GflagsResult> {
  return runGflags(['/i', imageFileName(image)], options);
}

export async function setUserStackTraces(
  image: string,
  enable: boolean,
  options: GflagsOptions = {},
): Promise<GflagsResult> {
  const result = await runGflags(['/i', imageFileName(image), enable ? '+ust' : '-ust'], options);
  if (result.ust !== enable) {
    throw new CommandFailedError(
      `gflags ran but ${imageFileName(image)} still has ust ${result.ust ? 'on' : 'off'}; ` +
        'run from an elevated (administrator) prompt.',
      { command: result.command.join(' '), lastOutput: result.stdout.split(/\r?\n/) },
    );
  }
  return result;
}
