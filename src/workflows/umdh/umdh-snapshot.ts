// Takes one umdh snapshot log of a live process: `umdh -p:PID -f:FILE` (Windows only). umdh reads
// the process's stack-trace database, so the image must have run with +ust since it started;
// checkUserStackTraces() asks gflags first and says what to do when it is off.
import { stat } from 'node:fs/promises';
import { CommandFailedError, TargetError } from '../../errors.js';
import { queryImageFlags, type GflagsOptions } from '../gflags/gflags.js';
import { locateWindowsTool, type ToolLookup } from '../windows-tools.js';

export interface UmdhSnapshotOptions extends ToolLookup {
  umdhPath?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Passed to umdh as _NT_SYMBOL_PATH (umdh resolves frames while it writes the log). */
  symbolPath?: string;
}

export interface UmdhSnapshot {
  file: string;
  time: string;
  durationMs: number;
  bytes: number;
}

export async function takeUmdhSnapshot(
  pid: number,
  file: string,
  options: UmdhSnapshotOptions = {},
): Promise<UmdhSnapshot> {
  if (/[\r\n"]/.test(file)) throw new CommandFailedError(`unsafe snapshot path: ${file}`);
  const umdh = options.umdhPath ?? locateWindowsTool('umdh', options);
  const env = { ...(options.env ?? process.env) };
  if (options.symbolPath !== undefined) env['_NT_SYMBOL_PATH'] = options.symbolPath;
  const time = new Date().toISOString();
  const began = performance.now();
  const args = [`-p:${pid}`, `-f:${file}`];
  // Loaded here, not at the top: execa is ~100 modules that `--help` and the dump readers
  // never need (bench/cli-start.ts).
  const { execa } = await import('execa');
  const result = await execa(umdh, args, {
    reject: false,
    env,
    timeout: options.timeoutMs ?? 300_000,
    ...(options.signal === undefined ? {} : { cancelSignal: options.signal }),
  });
  const bytes = await stat(file).then(
    (s) => s.size,
    () => 0,
  );
  if (result.exitCode !== 0 || bytes === 0) {
    throw new CommandFailedError(
      `umdh could not snapshot pid ${pid} (exit ${String(result.exitCode)}); is the stack-trace database on (+ust) and the process started after it was set?`,
      {
        command: [umdh, ...args].join(' '),
        lastOutput: `${String(result.stdout)}\n${String(result.stderr)}`.split(/\r?\n/),
      },
    );
  }
  return { file, time, durationMs: Math.round(performance.now() - began), bytes };
}

/** Throws a TargetError explaining how to turn +ust on when the image runs without it. */
export async function checkUserStackTraces(
  image: string,
  options: GflagsOptions = {},
): Promise<void> {
  const settings = await queryImageFlags(image, options);
  if (!settings.ust) {
    throw new TargetError(
      'ust-off',
      `umdh needs the user-mode stack-trace database for ${image}, and gflags shows it is off ` +
        `(${settings.flags === 0 ? 'no registry settings' : `flags ${settings.flags?.toString(16).padStart(8, '0')}`}). ` +
        `Run \`cdb-harness gflags --enable-ust ${image}\` from an elevated prompt, restart the program, then run heap-trend again.`,
    );
  }
}
