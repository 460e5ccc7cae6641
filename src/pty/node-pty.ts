// node-pty, loaded on demand. It is an optional dependency with a native part: it is loaded the
// first time a debugger is started, never at import time, so `inspect`, `parse` and the builtin
// engine run (and start fast) where it is missing. node-pty is CommonJS, so a synchronous require
// keeps PtyProcess.spawn() synchronous.
//
// The package is @lydell/node-pty: node-pty's own code (https://github.com/lydell/node-pty, the
// same release number as microsoft/node-pty; ConPTY only on Windows, no winpty) with the native
// part prebuilt into one small package per platform (@lydell/node-pty-linux-x64, …-win32-x64, …)
// that npm picks through optionalDependencies. Upstream node-pty 1.1.0 installs 63 MB on every
// platform (58 MB of it Windows prebuilds and their PDBs) and on Linux builds from source with
// node-gyp, which needs python3, make, g++ and Node's headers from nodejs.org; the fork installs
// about 0.2 MB on Linux and builds nothing (test/package/pack-install.test.ts measures it).
import { createRequire } from 'node:module';
import type * as nodePtyModule from '@lydell/node-pty';
import { NodePtyMissingError } from '../errors.js';

type NodePty = typeof nodePtyModule;

/** The package that provides node-pty's API. */
export const NODE_PTY_PACKAGE = '@lydell/node-pty';

let nodePty: NodePty | undefined;

/** node-pty's module; throws NodePtyMissingError (exit code 3) saying how to get it. */
export function loadNodePty(): NodePty {
  if (nodePty) return nodePty;
  try {
    nodePty = createRequire(import.meta.url)(NODE_PTY_PACKAGE) as NodePty;
    return nodePty;
  } catch (error) {
    throw new NodePtyMissingError(nodePtyLoadFailure(error), { cause: error });
  }
}

const INSTEAD = 'or use --engine builtin / `cdb-harness inspect`, which need no debugger';

/**
 * What went wrong loading node-pty and what to do, in words. The cases: the package is absent;
 * its platform package is (npm's --omit=optional, or node_modules copied from another system);
 * it is there and does not load.
 */
export function nodePtyLoadFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Node's own words when the package is absent: "Cannot find module '@lydell/node-pty'".
  if (
    (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
    message.includes(`'${NODE_PTY_PACKAGE}'`)
  ) {
    return `the cdb/winedbg engines need node-pty (${NODE_PTY_PACKAGE}), which is not installed: it comes with cdb-harness unless optional dependencies were omitted; npm install ${NODE_PTY_PACKAGE}, ${INSTEAD}`;
  }
  // @lydell/node-pty 1.1.0, requireBinary.js, when its platform package is missing:
  // The @lydell/node-pty package supports your platform (linux-x64), but it could not find the binary package for it: @lydell/node-pty-linux-x64/pty.node
  const platform = /could not find the binary package(?: for it)?: (@lydell\/node-pty-[\w-]+)/.exec(
    message,
  );
  if (platform) {
    return `the cdb/winedbg engines need node-pty's native part for this system, ${platform[1] ?? ''}, which is not installed: npm leaves it out under --omit=optional, and a node_modules copied from another system lacks it; run npm install again, ${INSTEAD}`;
  }
  return `the cdb/winedbg engines need node-pty (${NODE_PTY_PACKAGE}), which is installed but does not load (${message.split('\n')[0] ?? ''}): run npm install again, ${INSTEAD}`;
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
