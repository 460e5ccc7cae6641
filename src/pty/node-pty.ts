// node-pty, loaded on demand. It is an optional dependency with a native part: it is loaded the
// first time a debugger is started, never at import time, so `inspect`, `parse` and the builtin
// engine run (and start fast) where it is missing. node-pty is CommonJS, so a synchronous require
// keeps PtyProcess.spawn() synchronous.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
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
    throw new NodePtyMissingError(nodePtyLoadFailure(error), { cause: error });
  }
}

const INSTEAD = 'or use --engine builtin / `cdb-harness inspect`, which need no debugger';

/**
 * What went wrong loading node-pty and what to do, in words. Three cases: the package is absent;
 * it is there but its native part was never built (node-gyp could not get Node's headers, and npm
 * said nothing because node-pty is optional); it is there and built but does not load.
 */
export function nodePtyLoadFailure(
  error: unknown,
  nodePrefix = resolve(process.execPath, '..', '..'),
): string {
  const message = error instanceof Error ? error.message : String(error);
  // Node's own words when the package is absent: "Cannot find module 'node-pty'".
  if (
    (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
    message.includes("'node-pty'")
  ) {
    return `the cdb/winedbg engines need node-pty, which is not installed: npm install node-pty (it builds a small native module), ${INSTEAD}`;
  }
  // node-pty 1.x, lib/utils.js, when no build folder holds the addon:
  // "Failed to load native module: pty.node, checked: build/Release, build/Debug, prebuilds/linux-x64: …"
  if (/Failed to load native module: pty\.node/.test(message)) {
    const headers = existsSync(join(nodePrefix, 'include', 'node'))
      ? `npm_config_nodedir=${nodePrefix} npm rebuild node-pty (the headers of the node you run are in ${nodePrefix}/include/node)`
      : `npm rebuild node-pty where https://nodejs.org can be reached, or with npm_config_nodedir=DIR naming a folder whose include/node holds the headers of node ${process.version}`;
    return (
      "the cdb/winedbg engines need node-pty, which is installed but its native part was never built: npm builds it with node-gyp, which needs Node's C headers (downloaded from nodejs.org unless npm_config_nodedir names a local copy), and npm skips a failed optional build without a word. " +
      `Build it (needs make and a C++ compiler): ${headers}; ${INSTEAD}`
    );
  }
  return `the cdb/winedbg engines need node-pty, which is installed but does not load (${message.split('\n')[0] ?? ''}): npm rebuild node-pty, ${INSTEAD}`;
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
