// What to spawn for a session: the dialect's launch arguments for the target, run either through
// the given command prefix (the cdb emulator in tests), the given debugger path, or the binary the
// dialect finds itself (cdb: CDB_PATH and the SDK folders; winedbg: PATH).
import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { DebuggerNotFoundError } from '../errors.js';
import { findOnPath } from '../platform/index.js';
import { getDialect } from './dialects/index.js';
import type { Dialect } from './dialects/types.js';
import type { SessionOptions } from './session-types.js';

export function dialectOf(options: Pick<SessionOptions, 'dialect'>): Dialect {
  return typeof options.dialect === 'string' ? getDialect(options.dialect) : options.dialect;
}

export function spawnCommandFor(
  dialect: Dialect,
  options: SessionOptions,
): { file: string; args: string[] } {
  const dialectArgs = dialect.launchArgs(options.target, {
    ...(options.symbolPath === undefined ? {} : { symbolPath: options.symbolPath }),
    ...(options.extraArgs === undefined ? {} : { extraArgs: options.extraArgs }),
  });
  if (options.debuggerCommandPrefix) {
    return dialect.spawnCommand(options.debuggerCommandPrefix.file, [
      ...options.debuggerCommandPrefix.args,
      ...dialectArgs,
    ]);
  }
  const file =
    options.debuggerPath === undefined
      ? dialect.locateBinary(options.env ?? process.env)
      : debuggerFile(options.debuggerPath);
  return dialect.spawnCommand(file, dialectArgs);
}

/**
 * A --debugger path as the user meant it: a relative path with a folder in it
 * (`build\dbgeng\dbgeng-host.exe`) is relative to where the command was typed. node-pty's Windows
 * backend looks a file up on PATH only (a relative path failed with `File not found:`), and its
 * Unix backend resolves it against the session's cwd, which need not be the caller's. A bare name
 * (`cdb.exe`) is still looked up on PATH.
 */
export function debuggerFile(path: string, cwd: string = process.cwd()): string {
  if (isAbsolute(path) || !/[\\/]/.test(path)) return path;
  return resolve(cwd, path);
}

/**
 * A --debugger that is not there, said before anything starts (exit 3), not once per job or dump
 * as a failed spawn: a path with a folder in it must exist, a bare name must be on PATH.
 */
export function assertDebuggerFile(
  engine: string,
  path: string,
  env: NodeJS.ProcessEnv,
  cwd: string = process.cwd(),
): void {
  const file = debuggerFile(path, cwd);
  const found = /[\\/]/.test(file) ? existsSync(file) : findOnPath(file, env) !== undefined;
  if (found) return;
  const where = /[\\/]/.test(file) ? `${file} does not exist` : `${file} is not on PATH`;
  throw new DebuggerNotFoundError(
    `--debugger ${path}: ${where}, so the ${engine} engine cannot start. cdb.exe comes with ` +
      'Debugging Tools for Windows (winget install Microsoft.WinDbg, or the Windows SDK), winedbg ' +
      'with Wine (apt-get install wine). For dumps, --engine builtin needs no debugger.',
  );
}
