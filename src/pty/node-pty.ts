// node-pty, loaded on demand. It is an optional dependency with a native part: it is loaded the
// first time a debugger is started, never at import time, so `inspect`, `parse` and the builtin
// engine run (and start fast) where it is missing. node-pty is CommonJS, so a synchronous require
// keeps PtyProcess.spawn() synchronous.
import { createRequire } from 'node:module';
import type * as nodePtyModule from 'node-pty';
import { NodePtyMissingError } from '../errors.js';

type NodePty = typeof nodePtyModule;

let nodePty: NodePty | undefined;

/** node-pty's module; throws NodePtyMissingError (exit code 3) saying how to get it. */
export function loadNodePty(): NodePty {
  if (nodePty) return nodePty;
  try {
    nodePty = createRequire(import.meta.url)('node-pty') as NodePty;
    return nodePty;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node's own words when the package is absent: "Cannot find module 'node-pty'".
    const absent =
      (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      message.includes("'node-pty'");
    const instead = 'or use --engine builtin / `cdb-harness inspect`, which need no debugger';
    throw new NodePtyMissingError(
      absent
        ? `the cdb/winedbg engines need node-pty, which is not installed: npm install node-pty (it builds a small native module), ${instead}`
        : `the cdb/winedbg engines need node-pty, which is installed but does not load (${message.split('\n')[0] ?? ''}): npm rebuild node-pty, ${instead}`,
      { cause: error },
    );
  }
}

/** Whether a debugger engine can be started at all (for `--engine auto`). */
export function nodePtyAvailable(): boolean {
  try {
    loadNodePty();
    return true;
  } catch {
    return false;
  }
}
