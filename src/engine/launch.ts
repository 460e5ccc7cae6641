// What to spawn for a session: the dialect's launch arguments for the target, run either through
// the given command prefix (the cdb emulator in tests), the given debugger path, or the binary the
// dialect finds itself (cdb: CDB_PATH and the SDK folders; winedbg: PATH).
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
  const file = options.debuggerPath ?? dialect.locateBinary(options.env ?? process.env);
  return dialect.spawnCommand(file, dialectArgs);
}
