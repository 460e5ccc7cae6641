// The registry of debuggers the engine can drive: one line per dialect folder. Adding a debugger
// is a new folder beside cdb/ and winedbg/ that exports a Dialect, plus its line here; every
// workflow then reaches it through getDialect() and the Dialect's abilities, never by its name.
import { UsageError } from '../../errors.js';
import { cdbDialect } from './cdb/index.js';
import { dotnetDumpDialect } from './dotnet-dump/index.js';
import type { Dialect } from './types.js';
import { winedbgDialect } from './winedbg/index.js';

const DIALECTS = {
  cdb: cdbDialect,
  winedbg: winedbgDialect,
  'dotnet-dump': dotnetDumpDialect,
} as const satisfies Record<string, Dialect>;

/**
 * Folders beside the debuggers that speak to a .NET runtime's own diagnostics channel instead of
 * driving a debugger session: no prompt, no commands, so no Dialect. Listed so that the registry
 * and the folders stay one list (test/engine/third-dialect.test.ts).
 */
export const DIAGNOSTICS_TOOL_FOLDERS = ['dotnet-diag', 'dotnet-gcdump'] as const;

/** The name of a debugger the engine can drive (`--engine cdb`, `--engine winedbg`). */
export type DialectName = keyof typeof DIALECTS;

/** Every dialect name, in registry order (for `--engine` choices and messages). */
export const DIALECT_NAMES = Object.keys(DIALECTS) as DialectName[];

export function isDialectName(name: string): name is DialectName {
  return Object.hasOwn(DIALECTS, name);
}

/** The dialect of that name; an unknown name is a UsageError listing the known ones. */
export function getDialect(name: string): Dialect {
  if (!isDialectName(name)) {
    throw new UsageError(
      `Unknown debugger ${JSON.stringify(name)}: use one of ${DIALECT_NAMES.join(', ')}.`,
    );
  }
  return DIALECTS[name];
}

export type * from './types.js';
export type { StopEvent, StopKind } from './common/stop-event.js';
