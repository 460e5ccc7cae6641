// Which debugger to run and how: the settings every workflow hands to the engine unchanged. They
// are copied in one place because under exactOptionalPropertyTypes an option set to `undefined`
// is not the same as an absent one, so each must be dropped when unset, not passed on.
//
// The abort signal is not among them on purpose: whether a workflow lets the engine end the
// session on abort (dump, analyze) or ends it itself (watch) is that workflow's decision.
import type { SessionOptions } from '../engine/debugger-session.js';

export type DebuggerLaunchOptions = Pick<
  SessionOptions,
  'debuggerPath' | 'debuggerCommandPrefix' | 'symbolPath' | 'env' | 'cwd' | 'recordPath'
>;

/** The same settings as a workflow holds them: each may be missing or undefined. */
export type UnsetDebuggerLaunchOptions = {
  [K in keyof DebuggerLaunchOptions]?: DebuggerLaunchOptions[K] | undefined;
};

/**
 * Only the launch settings, only those that are set. Any other key of `from` (timeouts, the
 * signal, workflow options) is left behind, so a whole options object may be passed.
 */
export function debuggerLaunchOptions(from: UnsetDebuggerLaunchOptions): DebuggerLaunchOptions {
  const launch: DebuggerLaunchOptions = {};
  if (from.debuggerPath !== undefined) launch.debuggerPath = from.debuggerPath;
  if (from.debuggerCommandPrefix !== undefined) {
    launch.debuggerCommandPrefix = from.debuggerCommandPrefix;
  }
  if (from.symbolPath !== undefined) launch.symbolPath = from.symbolPath;
  if (from.env !== undefined) launch.env = from.env;
  if (from.cwd !== undefined) launch.cwd = from.cwd;
  if (from.recordPath !== undefined) launch.recordPath = from.recordPath;
  return launch;
}
