// Running `dotnet-gcdump collect -p PID -o FILE` (https://learn.microsoft.com/dotnet/core/diagnostics/dotnet-gcdump):
// the runtime is asked over its diagnostics channel for a GC heap walk (one induced, blocking
// gen2 GC while the walk's events stream out), and the tool writes the object graph it rebuilt
// from them. The tool is found like dotnet-dump (../dotnet-dump/locate.ts: --debugger, PATH,
// ~/.dotnet/tools, a local tool manifest). Then the file is read back (gcdump-file.ts), bounded.
import { readFile, stat } from 'node:fs/promises';
import { BadDumpError, failureCause } from '../../../errors.js';
import { locateDotnetTool } from '../dotnet-dump/locate.js';
import { collectDump } from '../dotnet-dump/tool-run.js';
import { readGcDump, type GcDump } from './gcdump-file.js';

/** Largest .gcdump read (the graph of a heap of some ten million objects is a few hundred MB). */
export const MAX_GCDUMP_BYTES = 1536 * 1024 * 1024;

export interface GcDumpCollectOptions {
  env?: NodeJS.ProcessEnv;
  /** `--debugger`: dotnet-dump's path (dotnet-gcdump is looked for beside it) or a manifest folder. */
  toolPath?: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** Writes a gcdump of `pid` to `path`; returns the tool's wall time (spawn to exit). */
export async function collectGcDump(
  pid: number,
  path: string,
  options: GcDumpCollectOptions,
): Promise<{ durationMs: number }> {
  const tool = locateDotnetTool('dotnet-gcdump', options.env, options.toolPath);
  const { durationMs } = await collectDump(tool, pid, path, {
    kind: 'gcdump',
    timeoutMs: options.timeoutMs,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  });
  return { durationMs };
}

/** Reads a .gcdump file (at most MAX_GCDUMP_BYTES); returns the graph and the file's size. */
export async function loadGcDump(path: string): Promise<{ dump: GcDump; bytes: number }> {
  const info = await stat(path).catch((error: unknown) => {
    throw new BadDumpError(path, `cannot read ${path}: ${failureCause(error)}`);
  });
  if (!info.isFile()) throw new BadDumpError(path, `${path} is not a file`);
  if (info.size > MAX_GCDUMP_BYTES) {
    throw new BadDumpError(
      path,
      `${path} is ${info.size} bytes, more than the ${MAX_GCDUMP_BYTES} a gcdump is read up to`,
    );
  }
  const bytes = await readFile(path);
  return { dump: readGcDump(bytes, path), bytes: info.size };
}
