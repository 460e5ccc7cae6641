// Public library API: re-exports only.
export * from './errors.js';
export type * from './parsers/records.js';
export * from './engine/debugger-session.js';
export type * from './engine/stop-event.js';
export { getDialect } from './engine/dialects/dialect.js';
export type {
  Dialect as DebuggerDialect,
  DialectName,
  ExceptionBreakSettings,
  SessionTarget,
} from './engine/dialects/dialect.js';
export { locateCdb } from './engine/dialects/locate-cdb.js';
export { buildSymbolPath, MICROSOFT_SYMBOL_SERVER } from './engine/dialects/symbol-path.js';
export type { SymbolPathOptions } from './engine/dialects/symbol-path.js';
export { PtyProcess } from './pty/pty-process.js';
export type { PtyExit, PtyProcessOptions } from './pty/pty-process.js';
